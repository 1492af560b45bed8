package io.txlock.jdbc;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

class MariaDbUniqueInsertContractTest extends JdbcContractTest {
    MariaDbUniqueInsertContractTest() {
        super(TestDatabase.Kind.MARIADB, Strategy.UNIQUE_INSERT);
    }
}
