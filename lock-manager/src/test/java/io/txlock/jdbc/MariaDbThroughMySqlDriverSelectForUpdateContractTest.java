package io.txlock.jdbc;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

/** MariaDB reached through MySQL Connector/J, the dialect detected from it: the driver parses SQL its own way. */
class MariaDbThroughMySqlDriverSelectForUpdateContractTest extends JdbcContractTest {
    MariaDbThroughMySqlDriverSelectForUpdateContractTest() {
        super(TestDatabase.Kind.MARIADB, Strategy.SELECT_FOR_UPDATE, JdbcDialect.MARIADB, null, true);
    }
}
