package io.txlock.it.app;

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

/** Creates the lock table and the application's tables when the application starts, in its fresh namespace. */
@Singleton
@Startup
public class Schema {

    @Resource(lookup = "java:app/jdbc/txlock-nonjta")
    DataSource dataSource;

    @PostConstruct
    void create() {
        JdbcLockSchema.create(dataSource, dialect(), "method_lock");
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            // no unique key on order_no: an order stored twice shows as two rows
            s.execute("CREATE TABLE orders (id VARCHAR(40) NOT NULL PRIMARY KEY, order_no VARCHAR(64) NOT NULL,"
                    + " lock_token BIGINT NOT NULL)");
            s.execute("CREATE INDEX orders_no_ix ON orders (order_no)");
            s.execute("CREATE TABLE counters (name VARCHAR(64) NOT NULL PRIMARY KEY, counter_value BIGINT NOT NULL)");
            // the JPA entity of the JPA provider's tests
            s.execute("CREATE TABLE placed_order (id VARCHAR(40) NOT NULL PRIMARY KEY, order_no VARCHAR(64) NOT NULL,"
                    + " lock_token BIGINT NOT NULL)");
        } catch (SQLException e) {
            throw new IllegalStateException("could not create the test tables: " + e.getMessage(), e);
        }
    }

    private JdbcDialect dialect() {
        try (Connection c = dataSource.getConnection()) {
            String product = c.getMetaData().getDatabaseProductName() + " " + c.getMetaData().getDatabaseProductVersion();
            if (product.startsWith("H2")) {
                return JdbcDialect.H2;
            }
            if (product.startsWith("PostgreSQL")) {
                return JdbcDialect.POSTGRESQL;
            }
            return JdbcDialect.MARIADB;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
