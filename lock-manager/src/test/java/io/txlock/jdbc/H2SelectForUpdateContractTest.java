package io.txlock.jdbc;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

class H2SelectForUpdateContractTest extends JdbcContractTest {
    H2SelectForUpdateContractTest() {
        super(TestDatabase.Kind.H2, Strategy.SELECT_FOR_UPDATE);
    }
}
