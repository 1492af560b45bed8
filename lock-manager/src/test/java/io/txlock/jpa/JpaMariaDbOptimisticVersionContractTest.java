package io.txlock.jpa;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

class JpaMariaDbOptimisticVersionContractTest extends JpaContractTest {
    JpaMariaDbOptimisticVersionContractTest() {
        super(TestDatabase.Kind.MARIADB, Strategy.OPTIMISTIC_VERSION);
    }
}
