package io.txlock.jdbc;

import io.txlock.Strategy;

class PostgresSelectForUpdateContractTest extends JdbcContractTest {
    PostgresSelectForUpdateContractTest() {
        super(TestDatabase.Kind.POSTGRESQL, Strategy.SELECT_FOR_UPDATE);
    }
}
