package io.txlock.jdbc;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

class PostgresUniqueInsertContractTest extends JdbcContractTest {
    PostgresUniqueInsertContractTest() {
        super(TestDatabase.Kind.POSTGRESQL, Strategy.UNIQUE_INSERT);
    }
}
