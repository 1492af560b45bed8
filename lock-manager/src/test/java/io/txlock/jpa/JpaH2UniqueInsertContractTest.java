package io.txlock.jpa;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

class JpaH2UniqueInsertContractTest extends JpaContractTest {
    JpaH2UniqueInsertContractTest() {
        super(TestDatabase.Kind.H2, Strategy.UNIQUE_INSERT);
    }
}
