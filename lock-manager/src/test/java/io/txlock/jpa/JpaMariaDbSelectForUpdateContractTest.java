package io.txlock.jpa;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

class JpaMariaDbSelectForUpdateContractTest extends JpaContractTest {
    JpaMariaDbSelectForUpdateContractTest() {
        super(TestDatabase.Kind.MARIADB, Strategy.SELECT_FOR_UPDATE);
    }
}
