package io.txlock.jdbc;

import io.txlock.Strategy;

class PostgresAdvisoryContractTest extends JdbcContractTest {
    PostgresAdvisoryContractTest() {
        super(TestDatabase.Kind.POSTGRESQL, Strategy.ADVISORY);
    }
}
