package io.txlock.jdbc;

import io.txlock.Strategy;

class PostgresOptimisticVersionContractTest extends JdbcContractTest {
    PostgresOptimisticVersionContractTest() {
        super(TestDatabase.Kind.POSTGRESQL, Strategy.OPTIMISTIC_VERSION);
    }
}
