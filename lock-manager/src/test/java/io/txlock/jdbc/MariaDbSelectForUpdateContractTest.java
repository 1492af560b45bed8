package io.txlock.jdbc;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

class MariaDbSelectForUpdateContractTest extends JdbcContractTest {
    MariaDbSelectForUpdateContractTest() {
        super(TestDatabase.Kind.MARIADB, Strategy.SELECT_FOR_UPDATE);
    }
}
