package io.txlock.jdbc;

import io.txlock.Strategy;

class PostgresUniqueInsertContractTest extends JdbcContractTest {
    PostgresUniqueInsertContractTest() {
        super(TestDatabase.Kind.POSTGRESQL, Strategy.UNIQUE_INSERT);
    }
}
