package io.txlock.jdbc;

import io.txlock.Strategy;

class H2UniqueInsertContractTest extends JdbcContractTest {
    H2UniqueInsertContractTest() {
        super(TestDatabase.Kind.H2, Strategy.UNIQUE_INSERT);
    }
}
