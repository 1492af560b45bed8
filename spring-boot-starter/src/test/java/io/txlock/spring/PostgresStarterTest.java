package io.txlock.spring;

import io.txlock.jdbc.TestDatabase;

class PostgresStarterTest extends StarterTest {
    @Override
    TestDatabase.Kind kind() {
        return TestDatabase.Kind.POSTGRESQL;
    }
}
