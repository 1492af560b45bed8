package io.txlock.jdbc;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

class PostgresOptimisticVersionContractTest extends JdbcContractTest {
    PostgresOptimisticVersionContractTest() {
        super(TestDatabase.Kind.POSTGRESQL, Strategy.OPTIMISTIC_VERSION);
    }
}
