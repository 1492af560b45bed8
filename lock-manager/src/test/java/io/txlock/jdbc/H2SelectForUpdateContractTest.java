package io.txlock.jdbc;

import io.txlock.Strategy;

class H2SelectForUpdateContractTest extends JdbcContractTest {
    H2SelectForUpdateContractTest() {
        super(TestDatabase.Kind.H2, Strategy.SELECT_FOR_UPDATE);
    }
}
