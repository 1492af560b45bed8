package io.txlock.jdbc;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

/** MySQL 8's SQL (GET_LOCK waits in whole seconds, tokens from a token table) through MySQL Connector/J, on MariaDB. */
class MySqlDialectOnMariaDbAdvisoryContractTest extends JdbcContractTest {
    MySqlDialectOnMariaDbAdvisoryContractTest() {
        super(TestDatabase.Kind.MARIADB, Strategy.ADVISORY, JdbcDialect.MYSQL, JdbcDialect.MYSQL, true);
    }
}
