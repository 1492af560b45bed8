package io.txlock.jdbc;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

/**
 * MySQL 8's SQL (a token table, session lock waits in whole seconds) through MySQL Connector/J, on MariaDB: no MySQL
 * server runs here.
 */
class MySqlDialectOnMariaDbUniqueInsertContractTest extends JdbcContractTest {
    MySqlDialectOnMariaDbUniqueInsertContractTest() {
        super(TestDatabase.Kind.MARIADB, Strategy.UNIQUE_INSERT, JdbcDialect.MYSQL, JdbcDialect.MYSQL, true);
    }
}
