package io.txlock.jdbc;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

class PostgresAdvisoryContractTest extends JdbcContractTest {
    PostgresAdvisoryContractTest() {
        super(TestDatabase.Kind.POSTGRESQL, Strategy.ADVISORY);
    }
}
