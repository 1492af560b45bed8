package io.txlock.jdbc;

import io.txlock.Strategy;

class MariaDbSelectForUpdateContractTest extends JdbcContractTest {
    MariaDbSelectForUpdateContractTest() {
        super(TestDatabase.Kind.MARIADB, Strategy.SELECT_FOR_UPDATE);
    }
}
