package io.txlock.jpa;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

class JpaPostgresUniqueInsertContractTest extends JpaContractTest {
    JpaPostgresUniqueInsertContractTest() {
        super(TestDatabase.Kind.POSTGRESQL, Strategy.UNIQUE_INSERT);
    }
}
