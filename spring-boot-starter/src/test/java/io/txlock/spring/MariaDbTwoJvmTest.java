package io.txlock.spring;

import io.txlock.testkit.TestDatabase;

/** On MariaDB, whose DDL commits statement by statement, the test creates the lock table first. */
class MariaDbTwoJvmTest extends TwoJvmTest {
    @Override
    TestDatabase.Kind kind() {
        return TestDatabase.Kind.MARIADB;
    }

    @Override
    boolean instancesCreateTheTable() {
        return false;
    }
}
