package io.txlock.jdbc;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

class H2UniqueInsertContractTest extends JdbcContractTest {
    H2UniqueInsertContractTest() {
        super(TestDatabase.Kind.H2, Strategy.UNIQUE_INSERT);
    }
}
