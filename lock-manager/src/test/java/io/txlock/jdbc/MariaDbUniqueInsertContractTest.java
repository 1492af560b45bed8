package io.txlock.jdbc;

import io.txlock.Strategy;

class MariaDbUniqueInsertContractTest extends JdbcContractTest {
    MariaDbUniqueInsertContractTest() {
        super(TestDatabase.Kind.MARIADB, Strategy.UNIQUE_INSERT);
    }
}
