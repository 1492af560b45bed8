package io.txlock.spring;

import io.txlock.testkit.TestDatabase;

/**
 * On MariaDB, with Boot's AOP auto-configuration off (the transaction infrastructure's auto-proxy creator) and JPA's
 * too (a JdbcTransactionManager, Boot's DataSourceTransactionManager).
 */
class MariaDbStarterTest extends StarterTest {
    @Override
    TestDatabase.Kind kind() {
        return TestDatabase.Kind.MARIADB;
    }

    @Override
    String[] moreProperties() {
        return new String[] {"spring.aop.auto=false", WITHOUT_JPA};
    }

    @Override
    String expectedProxyCreator() {
        return "InfrastructureAdvisorAutoProxyCreator";
    }

    @Override
    String expectedTransactionManager() {
        return "JdbcTransactionManager";
    }
}
