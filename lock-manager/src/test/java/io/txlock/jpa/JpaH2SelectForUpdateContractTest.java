package io.txlock.jpa;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

class JpaH2SelectForUpdateContractTest extends JpaContractTest {
    JpaH2SelectForUpdateContractTest() {
        super(TestDatabase.Kind.H2, Strategy.SELECT_FOR_UPDATE);
    }
}
