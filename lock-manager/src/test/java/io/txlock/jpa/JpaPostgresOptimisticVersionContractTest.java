package io.txlock.jpa;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

class JpaPostgresOptimisticVersionContractTest extends JpaContractTest {
    JpaPostgresOptimisticVersionContractTest() {
        super(TestDatabase.Kind.POSTGRESQL, Strategy.OPTIMISTIC_VERSION);
    }
}
