package io.txlock.testkit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txlock.jdbc.JdbcDialect;
import io.txlock.jdbc.JdbcLockSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * A fresh, empty database namespace for one test class on a real server: its own schema on the shared
 * PostgreSQL, its own database on the shared MariaDB, its own in-memory database behind an H2 TCP server (so
 * that child JVMs reach it too). Concurrent test runs on one machine never see each other's tables. A server
 * that cannot be reached is a failure, never a skip.
 */
public final class TestDatabase implements AutoCloseable {

    /** The servers the tests run on. */
    public enum Kind {
        H2(JdbcDialect.H2), POSTGRESQL(JdbcDialect.POSTGRESQL), MARIADB(JdbcDialect.MARIADB);

        public final JdbcDialect dialect;

        Kind(JdbcDialect dialect) {
            this.dialect = dialect;
        }
    }

    private static org.h2.tools.Server h2Server;

    private final Kind kind;
    private final String namespace;
    private final String url;
    private final String user;
    private final HikariDataSource dataSource;
    private long lastInnoDbRead;

    private TestDatabase(Kind kind) {
        this.kind = kind;
        this.namespace = "txl_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        switch (kind) {
            case H2 -> {
                this.user = "sa";
                this.url = "jdbc:h2:tcp://127.0.0.1:" + h2Port() + "/mem:" + namespace + ";DB_CLOSE_DELAY=-1";
            }
            case POSTGRESQL -> {
                this.user = System.getProperty("txlock.test.postgresql.user", "postgres");
                String server = System.getProperty("txlock.test.postgresql.url", "jdbc:postgresql://127.0.0.1:5432/test");
                execute(server, user, "CREATE SCHEMA " + namespace);
                // the application name tags this namespace's sessions in pg_stat_activity
                this.url = server + (server.contains("?") ? "&" : "?") + "currentSchema=" + namespace + "&ApplicationName=" + namespace;
            }
            case MARIADB -> {
                this.user = System.getProperty("txlock.test.mariadb.user", "root");
                String server = System.getProperty("txlock.test.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test");
                execute(server, user, "CREATE DATABASE " + namespace + " CHARACTER SET utf8mb4");
                this.url = server.substring(0, server.lastIndexOf('/') + 1) + namespace;
            }
            default -> throw new IllegalArgumentException(kind.toString());
        }
        this.dataSource = pool(url, user, 16);
    }

    /**
     * @param kind which server
     * @return a fresh namespace on it
     */
    public static TestDatabase create(Kind kind) {
        return new TestDatabase(kind);
    }

    /** @return the JDBC URL of this namespace */
    public String url() {
        return url;
    }

    /** @return the user */
    public String user() {
        return user;
    }

    /** @return the server kind */
    public Kind kind() {
        return kind;
    }

    /** @return the dialect */
    public JdbcDialect dialect() {
        return kind.dialect;
    }

    /** @return a pool on this namespace, closed with it */
    public DataSource dataSource() {
        return dataSource;
    }

    /**
     * @param table a lock table to create here
     * @return this
     */
    public TestDatabase withLockTable(String table) {
        return withLockTable(table, kind.dialect);
    }

    /**
     * @param table a lock table to create here
     * @param dialect whose script creates it (MySQL's runs on MariaDB too)
     * @return this
     */
    public TestDatabase withLockTable(String table, JdbcDialect dialect) {
        JdbcLockSchema.create(dataSource, dialect, table);
        return this;
    }

    /**
     * @param sql a statement to run on this namespace, in its own transaction
     */
    public void execute(String sql) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /**
     * @return how many sessions of this namespace wait right now for a lock another transaction (or session) holds, a
     *     row lock or an advisory lock: polled by
     *     tests that must know a waiter really waits in the database before they go on
     */
    public int lockWaiters() {
        String sql = switch (kind) {
            // an in-memory database of its own; H2 names no blocker for a wait on a row another transaction inserted,
            // but a statement that runs for 200 ms in such a tiny database waits for a lock
            case H2 -> "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE SESSION_ID <> SESSION_ID() AND (BLOCKER_ID"
                    + " IS NOT NULL OR EXECUTING_STATEMENT_START < DATEADD(MILLISECOND, -200, CURRENT_TIMESTAMP))";
            case POSTGRESQL -> "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = ? AND wait_event_type = 'Lock'";
            // a row lock wait shows in INNODB_TRX, a GET_LOCK wait as the session's state
            case MARIADB -> "SELECT (SELECT COUNT(*) FROM information_schema.INNODB_TRX t JOIN information_schema.PROCESSLIST p"
                    + " ON p.ID = t.trx_mysql_thread_id WHERE t.trx_state = 'LOCK WAIT' AND p.DB = ?)"
                    + " + (SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE STATE = 'User lock' AND DB = ?)";
        };
        return count(sql);
    }

    /**
     * @return how many transactions of this namespace have started in InnoDB and not ended (MariaDB only): a
     *     transaction appears there with its first statement that touched a table
     */
    public int innoDbTransactions() {
        if (kind != Kind.MARIADB) {
            throw new IllegalStateException("InnoDB transactions exist on MariaDB only, not on " + kind);
        }
        return count("SELECT COUNT(*) FROM information_schema.INNODB_TRX t JOIN information_schema.PROCESSLIST p"
                + " ON p.ID = t.trx_mysql_thread_id WHERE p.DB = ?");
    }

    private int count(String sql) {
        if (kind == Kind.MARIADB) {
            readInnoDbTransactionsAtMostEvery150Ms();
        }
        try (Connection c = dataSource.getConnection(); java.sql.PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 1; i <= sql.chars().filter(ch -> ch == '?').count(); i++) {
                ps.setString(i, namespace);
            }
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /**
     * MariaDB's {@code INNODB_TRX} is a cache it refreshes only after 100 ms without a read: read more often, it
     * never shows a transaction that started to wait since.
     */
    private synchronized void readInnoDbTransactionsAtMostEvery150Ms() {
        long wait = lastInnoDbRead + TimeUnit.MILLISECONDS.toNanos(150) - System.nanoTime();
        if (wait > 0) {
            LockSupport.parkNanos(wait);
        }
        lastInnoDbRead = System.nanoTime();
    }

    /**
     * @param prefix names the database, for thread dumps and logs
     * @param poolSize the pool's size
     * @return a pool over a fresh in-memory H2 database of this JVM alone, with the lock table {@code method_lock}
     */
    public static HikariDataSource inMemoryH2(String prefix, int poolSize) {
        HikariDataSource dataSource = pool("jdbc:h2:mem:" + prefix + "_" + UUID.randomUUID().toString().replace("-", "")
                + ";DB_CLOSE_DELAY=-1", "sa", poolSize);
        JdbcLockSchema.create(dataSource, JdbcDialect.H2, "method_lock");
        return dataSource;
    }

    public static HikariDataSource pool(String url, String user, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword("");
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(5_000);
        config.setPoolName("test-" + url.replaceAll(".*[/:]", ""));
        return new HikariDataSource(config);
    }

    private static synchronized int h2Port() {
        if (h2Server == null) {
            try {
                h2Server = org.h2.tools.Server.createTcpServer("-tcpPort", "0", "-tcpAllowOthers", "-ifNotExists").start();
            } catch (SQLException e) {
                throw new IllegalStateException("could not start an H2 TCP server: " + e.getMessage(), e);
            }
        }
        return h2Server.getPort();
    }

    private static void execute(String url, String user, String sql) {
        try (Connection c = DriverManager.getConnection(url, user, ""); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("the test database at " + url + " is not reachable or refused '" + sql
                    + "': " + e.getMessage() + " (CI starts it with .ci/run; locally start the server or set -Dtxlock.test."
                    + url.split(":")[1].toLowerCase(Locale.ROOT) + ".url)", e);
        }
    }

    @Override
    public void close() {
        dataSource.close();
        switch (kind) {
            case H2 -> {
                try (Connection c = DriverManager.getConnection(url, user, ""); Statement s = c.createStatement()) {
                    s.execute("SHUTDOWN");
                } catch (SQLException ignored) {
                    // already gone
                }
            }
            case POSTGRESQL -> execute(System.getProperty("txlock.test.postgresql.url", "jdbc:postgresql://127.0.0.1:5432/test"),
                    user, "DROP SCHEMA " + namespace + " CASCADE");
            case MARIADB -> execute(System.getProperty("txlock.test.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test"),
                    user, "DROP DATABASE " + namespace);
            default -> throw new IllegalArgumentException(kind.toString());
        }
    }

    @Override
    public String toString() {
        return kind + " " + namespace;
    }
}
