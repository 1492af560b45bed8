package io.txlock.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.txlock.testkit.TestDatabase;
import javax.sql.DataSource;

/**
 * A database, the dialect the provider speaks to it and the driver it connects with: each of the provider's
 * dialects, and MariaDB through MySQL Connector/J (MySQL's SQL on MariaDB, as no MySQL server runs here).
 */
enum JdbcSetup {
    H2(TestDatabase.Kind.H2, JdbcDialect.H2, false),
    POSTGRESQL(TestDatabase.Kind.POSTGRESQL, JdbcDialect.POSTGRESQL, false),
    MARIADB(TestDatabase.Kind.MARIADB, JdbcDialect.MARIADB, false),
    MARIADB_THROUGH_MYSQL_DRIVER(TestDatabase.Kind.MARIADB, JdbcDialect.MARIADB, true),
    MYSQL_DIALECT_ON_MARIADB(TestDatabase.Kind.MARIADB, JdbcDialect.MYSQL, true);

    final TestDatabase.Kind kind;
    final JdbcDialect dialect;
    final boolean mysqlDriver;

    JdbcSetup(TestDatabase.Kind kind, JdbcDialect dialect, boolean mysqlDriver) {
        this.kind = kind;
        this.dialect = dialect;
        this.mysqlDriver = mysqlDriver;
    }

    /** @return a fresh namespace with the dialect's lock table {@code method_lock} */
    TestDatabase database() {
        return TestDatabase.create(kind).withLockTable("method_lock", dialect);
    }

    /** @return a pool through MySQL Connector/J on {@code db}, to close after use; null where the test database's own pool is the one */
    HikariDataSource driverPool(TestDatabase db) {
        return mysqlDriver ? TestDatabase.pool(db.url().replace("jdbc:mariadb:", "jdbc:mysql:"), db.user(), 8) : null;
    }

    /** @return the datasource the provider is given: {@code driverPool}, else the test database's pool */
    static DataSource providerDataSource(TestDatabase db, HikariDataSource driverPool) {
        return driverPool != null ? driverPool : db.dataSource();
    }
}
