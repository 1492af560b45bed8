package io.txlock.it;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;

/**
 * The database of this failsafe execution ({@code -Dtxlock.db=h2|mariadb|postgresql}), with a fresh namespace per
 * deployment: a schema on the shared PostgreSQL, a database on the shared MariaDB, an H2 file database under
 * {@code target/h2}, opened by WildFly. Namespaces are dropped when the test JVM ends. A server that cannot be reached fails the deployment.
 */
final class ContainerDatabase {

    /** The databases the suite runs on. */
    enum Kind { H2, MARIADB, POSTGRESQL }

    final Kind kind;
    final String namespace;
    final String url;
    final String user;

    private ContainerDatabase(Kind kind) {
        this.kind = kind;
        this.namespace = "txl_it_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        switch (kind) {
            case H2 -> {
                // a file database: WildFly's datasource definitions take no ;SETTINGS in URLs, so no in-memory DB_CLOSE_DELAY
                this.user = "sa";
                this.url = "jdbc:h2:file:" + new java.io.File(System.getProperty("txlock.h2.dir", "target/h2"), namespace)
                        .getAbsolutePath();
            }
            case MARIADB -> {
                this.user = System.getProperty("txlock.test.mariadb.user", "root");
                String server = System.getProperty("txlock.test.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test");
                execute(server, user, "CREATE DATABASE " + namespace + " CHARACTER SET utf8mb4");
                dropOnExit(server, "DROP DATABASE " + namespace);
                this.url = server.substring(0, server.lastIndexOf('/') + 1) + namespace;
            }
            case POSTGRESQL -> {
                this.user = System.getProperty("txlock.test.postgresql.user", "postgres");
                String server = System.getProperty("txlock.test.postgresql.url", "jdbc:postgresql://127.0.0.1:5432/test");
                execute(server, user, "CREATE SCHEMA " + namespace);
                dropOnExit(server, "DROP SCHEMA " + namespace + " CASCADE");
                this.url = server + (server.contains("?") ? "&" : "?") + "currentSchema=" + namespace;
            }
            default -> throw new IllegalArgumentException(kind.toString());
        }
    }

    /** @return a fresh namespace on the database of this execution */
    static ContainerDatabase create() {
        String db = System.getProperty("txlock.db");
        if (db == null) {
            throw new IllegalStateException("-Dtxlock.db=h2|mariadb|postgresql is not set: run the suite through the"
                    + " failsafe executions of container-tests/pom.xml");
        }
        return new ContainerDatabase(Kind.valueOf(db.toUpperCase(Locale.ROOT)));
    }

    /** @return the driver's {@link javax.sql.DataSource} class, for the deployment's datasource definition */
    String dataSourceClass() {
        return switch (kind) {
            case H2 -> "org.h2.jdbcx.JdbcDataSource";
            case MARIADB -> "org.mariadb.jdbc.MariaDbDataSource";
            case POSTGRESQL -> "org.postgresql.ds.PGSimpleDataSource";
        };
    }

    /** @return the system property holding the driver jar's path */
    String driverJarProperty() {
        return "txlock.jar." + kind.name().toLowerCase(Locale.ROOT);
    }

    private void dropOnExit(String server, String sql) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                execute(server, user, sql);
            } catch (RuntimeException e) {
                System.err.println("could not drop test namespace " + namespace + ": " + e.getMessage());
            }
        }));
    }

    private static void execute(String url, String user, String sql) {
        try (Connection c = DriverManager.getConnection(url, user, ""); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("the test database at " + url + " is not reachable or refused '" + sql + "': "
                    + e.getMessage() + " (CI starts it with .ci/run)", e);
        }
    }

    @Override
    public String toString() {
        return kind + " " + namespace;
    }
}
