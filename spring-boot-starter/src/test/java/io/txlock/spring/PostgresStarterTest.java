package io.txlock.spring;

import io.txlock.testkit.TestDatabase;

/**
 * On PostgreSQL, as Boot configures an application with AspectJ and JPA on its class path: the AspectJ-aware
 * auto-proxy creator and a JpaTransactionManager, whose transactions expose their JDBC connection to the lock's SQL.
 */
class PostgresStarterTest extends StarterTest {
    @Override
    TestDatabase.Kind kind() {
        return TestDatabase.Kind.POSTGRESQL;
    }

    @Override
    String expectedProxyCreator() {
        return "AnnotationAwareAspectJAutoProxyCreator";
    }

    @Override
    String expectedTransactionManager() {
        return "JpaTransactionManager";
    }
}
