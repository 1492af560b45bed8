package io.txlock.it.adapterapp;

import io.txlock.jdbc.JdbcDialect;
import io.txlock.jdbc.JdbcLockSchema;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** Creates the lock table and the order table when the application starts, in its fresh namespace. */
@Singleton
@Startup
public class AdapterSchema {

    @Resource(lookup = "java:app/jdbc/txlock-nonjta")
    DataSource dataSource;

    @PostConstruct
    void create() {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            String product = c.getMetaData().getDatabaseProductName();
            JdbcDialect dialect = product.startsWith("H2") ? JdbcDialect.H2
                    : product.startsWith("PostgreSQL") ? JdbcDialect.POSTGRESQL : JdbcDialect.MARIADB;
            JdbcLockSchema.create(dataSource, dialect, "method_lock");
            // no unique key on order_no: an order stored twice shows as two rows
            s.execute("CREATE TABLE orders (id VARCHAR(40) NOT NULL PRIMARY KEY, order_no VARCHAR(64) NOT NULL,"
                    + " lock_token BIGINT NOT NULL)");
            s.execute("CREATE INDEX orders_no_ix ON orders (order_no)");
        } catch (SQLException e) {
            throw new IllegalStateException("could not create the test tables: " + e.getMessage(), e);
        }
    }
}
