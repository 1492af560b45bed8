package io.txlock.jdbc;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

/**
 * MySQL 8's SQL (a token table, session lock waits in whole seconds) through MySQL Connector/J, on MariaDB: no MySQL
 * server runs here.
 */
class MySqlDialectOnMariaDbOptimisticVersionContractTest extends JdbcContractTest {
    MySqlDialectOnMariaDbOptimisticVersionContractTest() {
        super(TestDatabase.Kind.MARIADB, Strategy.OPTIMISTIC_VERSION, JdbcDialect.MYSQL, JdbcDialect.MYSQL, true);
    }
}
