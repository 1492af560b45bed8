package io.txlock.jpa;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

class JpaMariaDbUniqueInsertContractTest extends JpaContractTest {
    JpaMariaDbUniqueInsertContractTest() {
        super(TestDatabase.Kind.MARIADB, Strategy.UNIQUE_INSERT);
    }
}
