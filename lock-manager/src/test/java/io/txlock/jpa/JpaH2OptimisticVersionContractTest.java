package io.txlock.jpa;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

class JpaH2OptimisticVersionContractTest extends JpaContractTest {
    JpaH2OptimisticVersionContractTest() {
        super(TestDatabase.Kind.H2, Strategy.OPTIMISTIC_VERSION);
    }
}
