package io.txlock.jdbc;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

class PostgresSelectForUpdateContractTest extends JdbcContractTest {
    PostgresSelectForUpdateContractTest() {
        super(TestDatabase.Kind.POSTGRESQL, Strategy.SELECT_FOR_UPDATE);
    }
}
