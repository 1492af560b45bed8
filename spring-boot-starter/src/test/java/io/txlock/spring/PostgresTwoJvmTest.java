package io.txlock.spring;

import io.txlock.jdbc.TestDatabase;

class PostgresTwoJvmTest extends TwoJvmTest {
    @Override
    TestDatabase.Kind kind() {
        return TestDatabase.Kind.POSTGRESQL;
    }
}
