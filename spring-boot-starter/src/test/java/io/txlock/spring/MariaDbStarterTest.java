package io.txlock.spring;

import io.txlock.jdbc.TestDatabase;

class MariaDbStarterTest extends StarterTest {
    @Override
    TestDatabase.Kind kind() {
        return TestDatabase.Kind.MARIADB;
    }
}
