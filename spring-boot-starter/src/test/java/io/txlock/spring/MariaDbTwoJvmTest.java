package io.txlock.spring;

import io.txlock.jdbc.TestDatabase;

class MariaDbTwoJvmTest extends TwoJvmTest {
    @Override
    TestDatabase.Kind kind() {
        return TestDatabase.Kind.MARIADB;
    }
}
