package io.txlock.jpa;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

class JpaPostgresSelectForUpdateContractTest extends JpaContractTest {
    JpaPostgresSelectForUpdateContractTest() {
        super(TestDatabase.Kind.POSTGRESQL, Strategy.SELECT_FOR_UPDATE);
    }
}
