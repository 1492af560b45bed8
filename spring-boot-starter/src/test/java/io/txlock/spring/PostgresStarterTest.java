package io.txlock.spring;

import io.txlock.jdbc.TestDatabase;

/** On PostgreSQL, with AspectJ on the class path: Boot proxies with its AspectJ-aware auto-proxy creator. */
class PostgresStarterTest extends StarterTest {
    @Override
    TestDatabase.Kind kind() {
        return TestDatabase.Kind.POSTGRESQL;
    }

    @Override
    String expectedProxyCreator() {
        return "AnnotationAwareAspectJAutoProxyCreator";
    }
}
