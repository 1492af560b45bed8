package io.txlock.jdbc;

import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;

class MariaDbAdvisoryContractTest extends JdbcContractTest {
    MariaDbAdvisoryContractTest() {
        super(TestDatabase.Kind.MARIADB, Strategy.ADVISORY);
    }
}
