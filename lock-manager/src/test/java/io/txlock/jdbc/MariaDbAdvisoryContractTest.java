package io.txlock.jdbc;

import io.txlock.Strategy;

class MariaDbAdvisoryContractTest extends JdbcContractTest {
    MariaDbAdvisoryContractTest() {
        super(TestDatabase.Kind.MARIADB, Strategy.ADVISORY);
    }
}
