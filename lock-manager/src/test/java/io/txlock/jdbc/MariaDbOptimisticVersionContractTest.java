package io.txlock.jdbc;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

class MariaDbOptimisticVersionContractTest extends JdbcContractTest {
    MariaDbOptimisticVersionContractTest() {
        super(TestDatabase.Kind.MARIADB, Strategy.OPTIMISTIC_VERSION);
    }
}
