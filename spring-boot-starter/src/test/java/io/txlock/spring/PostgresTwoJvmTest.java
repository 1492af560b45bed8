package io.txlock.spring;

import io.txlock.testkit.TestDatabase;

/** On PostgreSQL both instances start on a database without the lock table, and create it at once. */
class PostgresTwoJvmTest extends TwoJvmTest {
    @Override
    TestDatabase.Kind kind() {
        return TestDatabase.Kind.POSTGRESQL;
    }

    @Override
    boolean instancesCreateTheTable() {
        return true;
    }
}
