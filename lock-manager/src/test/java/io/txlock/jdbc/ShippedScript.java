package io.txlock.jdbc;

import io.txlock.testkit.TestDatabase;

/** A lock-table script that {@code txlock-sql} ships, and the test server it runs on (MySQL's runs on MariaDB). */
public enum ShippedScript {
    H2(TestDatabase.Kind.H2, JdbcDialect.H2),
    POSTGRESQL(TestDatabase.Kind.POSTGRESQL, JdbcDialect.POSTGRESQL),
    MARIADB(TestDatabase.Kind.MARIADB, JdbcDialect.MARIADB),
    MYSQL_ON_MARIADB(TestDatabase.Kind.MARIADB, JdbcDialect.MYSQL);

    /** The server the script runs on. */
    public final TestDatabase.Kind kind;
    /** The dialect whose script it is. */
    public final JdbcDialect dialect;

    ShippedScript(TestDatabase.Kind kind, JdbcDialect dialect) {
        this.kind = kind;
        this.dialect = dialect;
    }
}
