package io.txlock.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.txlock.LockBackendException;
import io.txlock.Strategy;
import io.txlock.jdbc.JdbcDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.locks.LockSupport;

/**
 * The database's bare lock, without txlock: what each strategy does reduced to its essential statements, on
 * tables of their own. A blocking session is the database's own handoff: a {@code SELECT … FOR UPDATE} that
 * waits in the database and is woken when the holder's transaction ends. A row lock is let go with
 * {@code ROLLBACK}, as txlock's LEASE-scoped row lock is: a {@code COMMIT} after {@code FOR UPDATE} would cost a
 * durable log flush on PostgreSQL (the row lock gave the transaction an id) and flatter txlock.
 */
final class JdbcRawLocks implements RawLocks {

    private static final Duration BLOCKING_WAIT = Duration.ofSeconds(60);

    private final JdbcBackend backend;
    private final Strategy strategy;
    private final HikariDataSource pool;

    JdbcRawLocks(JdbcBackend backend, Strategy strategy, HikariDataSource pool) {
        this.backend = backend;
        this.strategy = strategy;
        this.pool = pool;
    }

    @Override
    public String describeCycle() {
        return switch (strategy) {
            case SELECT_FOR_UPDATE -> "SELECT … FOR UPDATE + ROLLBACK";
            case OPTIMISTIC_VERSION -> "UPDATE … SET state='HELD' WHERE state='FREE' + UPDATE … SET state='FREE' (autocommit)";
            case UNIQUE_INSERT -> "INSERT + DELETE (autocommit)";
            case ADVISORY -> postgres() ? "SELECT pg_advisory_xact_lock(hashtextextended(name, 0)) + COMMIT"
                    : "SELECT GET_LOCK(name, 60) + SELECT RELEASE_LOCK(name) (autocommit)";
        };
    }

    @Override
    public String describeHandoff() {
        if (strategy == Strategy.ADVISORY) {
            return postgres() ? "pg_advisory_xact_lock waiting in the database, woken by the holder's COMMIT"
                    : "GET_LOCK waiting in the database, woken by the holder's RELEASE_LOCK";
        }
        return "SELECT … FOR UPDATE waiting in the database, woken by the holder's ROLLBACK";
    }

    private boolean postgres() {
        return backend.dialect() == JdbcDialect.POSTGRESQL;
    }

    @Override
    public void prepare(Collection<String> names) throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS raw_lock (name VARCHAR(255) NOT NULL PRIMARY KEY, state VARCHAR(8) NOT NULL,"
                    + " version BIGINT NOT NULL)" + engine());
            s.execute("CREATE TABLE IF NOT EXISTS raw_claim (name VARCHAR(255) NOT NULL PRIMARY KEY)" + engine());
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement(insertIfMissing())) {
                int batched = 0;
                for (String name : names) {
                    ps.setString(1, name);
                    ps.addBatch();
                    if (++batched % 500 == 0) {
                        ps.executeBatch();
                    }
                }
                ps.executeBatch();
            }
            c.commit();
            c.setAutoCommit(true);
        }
    }

    private String engine() {
        return backend.dialect() == JdbcDialect.MYSQL || backend.dialect() == JdbcDialect.MARIADB ? " ENGINE = InnoDB" : "";
    }

    private String insertIfMissing() {
        return switch (backend.dialect()) {
            case H2 -> "MERGE INTO raw_lock (name, state, version) KEY (name) VALUES (?, 'FREE', 0)";
            case POSTGRESQL -> "INSERT INTO raw_lock (name, state, version) VALUES (?, 'FREE', 0) ON CONFLICT (name) DO NOTHING";
            case MYSQL, MARIADB -> "INSERT IGNORE INTO raw_lock (name, state, version) VALUES (?, 'FREE', 0)";
        };
    }

    @Override
    public Session cycleSession() throws SQLException {
        return switch (strategy) {
            case SELECT_FOR_UPDATE -> new RowLock(pool.getConnection());
            case OPTIMISTIC_VERSION -> new Retrying(pool.getConnection(),
                    "UPDATE raw_lock SET state = 'HELD', version = version + 1 WHERE name = ? AND state = 'FREE'",
                    "UPDATE raw_lock SET state = 'FREE' WHERE name = ?");
            case UNIQUE_INSERT -> new Retrying(pool.getConnection(), "INSERT INTO raw_claim (name) VALUES (?)",
                    "DELETE FROM raw_claim WHERE name = ?");
            case ADVISORY -> new AdvisoryLock(pool.getConnection());
        };
    }

    /** For ADVISORY the database's advisory lock, which waits in the database too; else a row lock. */
    @Override
    public Session blockingSession() throws SQLException {
        return strategy == Strategy.ADVISORY ? new AdvisoryLock(pool.getConnection()) : new RowLock(pool.getConnection());
    }

    /** Leaves the backend's pool open; every session closed gave its connection back. */
    @Override
    public void close() {
    }

    /** A row lock held by an open transaction: the database queues waiters and wakes the next at commit. */
    private final class RowLock implements Session {
        private final Connection c;
        private final PreparedStatement select;

        RowLock(Connection c) throws SQLException {
            this.c = c;
            try (Statement s = c.createStatement()) {
                s.execute(backend.lockWaitSql(BLOCKING_WAIT));
            }
            c.setAutoCommit(false);
            this.select = c.prepareStatement("SELECT version FROM raw_lock WHERE name = ? FOR UPDATE");
        }

        @Override
        public void lock(String name) throws SQLException {
            select.setString(1, name);
            try (ResultSet rs = select.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("raw lock row '" + name + "' is missing: prepare() the names first");
                }
            }
        }

        @Override
        public void unlock() throws SQLException {
            c.rollback();
        }

        /**
         * Gives the connection back as the pool handed it out: HikariCP resets auto-commit but not session variables,
         * so the row-lock wait set for this session is put back to the pool's, for the runs that take it next.
         */
        @Override
        public void close() {
            try (Connection closing = c) {
                closing.rollback();
                closing.setAutoCommit(true);
                try (Statement s = closing.createStatement()) {
                    s.execute(backend.lockWaitSql(JdbcBackend.STATEMENT_LOCK_WAIT));
                }
            } catch (SQLException e) {
                throw new LockBackendException("could not give back a raw lock session's connection: " + e.getMessage(), e);
            }
        }
    }

    /**
     * The database's advisory lock, waiting in the database: PostgreSQL's transaction-level one, ended by
     * {@code COMMIT} (its key a hash of the name), or MySQL/MariaDB's {@code GET_LOCK}, ended by {@code RELEASE_LOCK}.
     */
    private final class AdvisoryLock implements Session {
        private final Connection c;
        private final PreparedStatement lock;
        private final PreparedStatement unlock;
        private String held;

        AdvisoryLock(Connection c) throws SQLException {
            this.c = c;
            if (postgres()) {
                try (Statement s = c.createStatement()) {
                    s.execute(backend.lockWaitSql(BLOCKING_WAIT));
                }
                c.setAutoCommit(false);
                this.lock = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))");
                this.unlock = null;
            } else {
                this.lock = c.prepareStatement("SELECT GET_LOCK(?, " + BLOCKING_WAIT.toSeconds() + ")");
                this.unlock = c.prepareStatement("SELECT RELEASE_LOCK(?)");
            }
        }

        @Override
        public void lock(String name) throws SQLException {
            lock.setString(1, name);
            try (ResultSet rs = lock.executeQuery()) {
                rs.next();
                if (unlock != null && rs.getInt(1) != 1) {
                    throw new IllegalStateException("GET_LOCK('" + name + "') was not granted within " + BLOCKING_WAIT);
                }
            }
            held = name;
        }

        @Override
        public void unlock() throws SQLException {
            if (unlock == null) {
                c.commit();
            } else {
                unlock.setString(1, held);
                unlock.executeQuery().close();
            }
        }

        /** Gives the connection back with no lock and the pool's settings, as {@link RowLock#close()} does. */
        @Override
        public void close() {
            try (Connection closing = c; Statement s = closing.createStatement()) {
                if (unlock == null) {
                    closing.rollback();
                    closing.setAutoCommit(true);
                    s.execute(backend.lockWaitSql(JdbcBackend.STATEMENT_LOCK_WAIT));
                } else {
                    s.execute("SELECT RELEASE_ALL_LOCKS()");
                }
            } catch (SQLException e) {
                throw new LockBackendException("could not give back a raw lock session's connection: " + e.getMessage(), e);
            }
        }
    }

    /** A statement that takes the lock or changes nothing, retried after 1 ms while it changes nothing. */
    private final class Retrying implements Session {
        private final Connection c;
        private final PreparedStatement take;
        private final PreparedStatement give;
        private String held;

        Retrying(Connection c, String take, String give) throws SQLException {
            this.c = c;
            this.take = c.prepareStatement(take);
            this.give = c.prepareStatement(give);
        }

        @Override
        public void lock(String name) throws SQLException {
            take.setString(1, name);
            while (true) {
                try {
                    if (take.executeUpdate() == 1) {
                        held = name;
                        return;
                    }
                } catch (SQLException e) {
                    if (!duplicateKey(e)) {
                        throw e;
                    }
                }
                LockSupport.parkNanos(1_000_000);
            }
        }

        private boolean duplicateKey(SQLException e) {
            return "23505".equals(e.getSQLState()) || e.getErrorCode() == 1062 || e.getErrorCode() == 23505;
        }

        @Override
        public void unlock() throws SQLException {
            give.setString(1, held);
            give.executeUpdate();
        }

        @Override
        public void close() {
            try {
                c.close();
            } catch (SQLException e) {
                throw new LockBackendException("could not give back a raw lock session's connection: " + e.getMessage(), e);
            }
        }
    }
}
