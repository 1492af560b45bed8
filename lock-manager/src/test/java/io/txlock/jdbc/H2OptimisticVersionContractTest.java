package io.txlock.jdbc;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

class H2OptimisticVersionContractTest extends JdbcContractTest {
    H2OptimisticVersionContractTest() {
        super(TestDatabase.Kind.H2, Strategy.OPTIMISTIC_VERSION);
    }
}
