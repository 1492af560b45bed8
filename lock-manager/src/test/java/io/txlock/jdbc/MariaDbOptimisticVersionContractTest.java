package io.txlock.jdbc;

import io.txlock.Strategy;

class MariaDbOptimisticVersionContractTest extends JdbcContractTest {
    MariaDbOptimisticVersionContractTest() {
        super(TestDatabase.Kind.MARIADB, Strategy.OPTIMISTIC_VERSION);
    }
}
