package io.txlock.jdbc;

import io.txlock.LockBackendException;
import io.txlock.spi.TransactionSupport;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** Connections and error translation shared by the three strategies. */
final class JdbcAccess {

    /** JDBC work on a connection. */
    @FunctionalInterface
    interface SqlWork<T> {
        T run(Connection c) throws SQLException;
    }

    private final DataSource transactional;
    private final DataSource lease;
    private final boolean separateLease;
    private volatile TransactionSupport transactions;
    private final JdbcDialect configuredDialect;
    private final String table;
    private volatile Statements statements;
    private volatile JdbcDialect dialect;

    JdbcAccess(DataSource transactional, DataSource lease, JdbcDialect dialect, String table) {
        this.transactional = transactional;
        this.lease = lease;
        this.separateLease = lease != transactional;
        this.configuredDialect = dialect;
        this.table = table;
    }

    String table() {
        return table;
    }

    Statements statements() {
        Statements s = statements;
        if (s == null) {
            synchronized (this) {
                s = statements;
                if (s == null) {
                    JdbcDialect dialect = configuredDialect;
                    if (dialect == null) {
                        dialect = detectDialect();
                    }
                    s = statementsFor(dialect, table);
                    this.dialect = dialect;
                    statements = s;
                }
            }
        }
        return s;
    }

    /**
     * Reads the connection's metadata only: no statement, no commit, so it is safe inside any transaction. Asks the
     * transactional datasource, which inside a transaction hands back the caller's own connection: a first use
     * inside a transaction needs no second connection (a pool sized to its clients would starve waiting for it).
     */
    private JdbcDialect detectDialect() {
        try (Connection c = transactional.getConnection()) {
            return JdbcDialect.detect(c.getMetaData());
        } catch (SQLException e) {
            throw failure("detect the database", e, false);
        }
    }

    static Statements statementsFor(JdbcDialect dialect, String table) {
        return switch (dialect) {
            case H2 -> new H2Statements(table);
            case POSTGRESQL -> new PostgresStatements(table);
            case MYSQL -> new MySqlStatements(table);
            case MARIADB -> new MariaDbStatements(table);
        };
    }

    /** @return the dialect, or null while the database was never reached */
    JdbcDialect dialect() {
        JdbcDialect d = dialect;
        return d != null ? d : configuredDialect;
    }

    /**
     * Runs work on the caller's transactional connection, after making sure, where the dialect needs it, that
     * the lock's row exists and is committed: on MySQL/MariaDB a row created inside a caller's transaction that
     * then rolls back makes the transactions waiting for it deadlock. Needs connections of the provider's own
     * (a lease datasource, or {@link JdbcTransactions}); without them the row is created in the caller's
     * transaction, as the dialect's statements do.
     */
    <T> T onExistingRowInCallerTransaction(String name, SqlWork<T> work, String what) {
        Statements st = statements();
        if (separateLease && st.rowsCreatedInACallerTransactionCanDeadlock()) {
            autoCommitted(c -> st.createFreeRow(c, name, java.time.Duration.ZERO, false), "create the row of '" + name + "' before locking it");
        }
        return inCallerTransaction(work, what);
    }

    /** Runs work on the caller's transactional connection: the container enlists it; never commits. */
    <T> T inCallerTransaction(SqlWork<T> work, String what) {
        try (Connection c = transactional.getConnection()) {
            return work.run(c);
        } catch (SQLException e) {
            throw failure(what, e, true);
        }
    }

    /** Runs work in its own short transaction, committed before returning. */
    <T> T autoCommitted(SqlWork<T> work, String what) {
        try (Connection c = ownConnection(what)) {
            if (c.getAutoCommit()) {
                return work.run(c);
            }
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(c);
                throw e;
            }
        } catch (SQLException e) {
            throw failure(what, e, false);
        }
    }

    /** Runs work in a transaction of its own, committed before returning. */
    <T> T inOwnTransaction(SqlWork<T> work, String what) {
        OwnTransaction tx;
        try {
            tx = openTransaction(what);
        } catch (SQLException e) {
            throw failure(what, e, false);
        }
        try {
            T result = work.run(tx.connection());
            tx.connection().commit();
            return result;
        } catch (SQLException e) {
            throw failure(what, e, false);
        } finally {
            tx.endQuietly();
        }
    }

    /**
     * Deletes every row whose lease or retention ran out, in transactions of {@code batch} rows that skip rows
     * locked right now, then purges used MySQL tokens.
     *
     * @return the number of rows deleted
     */
    int reapExpired(int batch) {
        int total = 0;
        while (true) {
            int deleted = inOwnTransaction(c -> statements().reap(c, batch), "reap expired rows");
            total += deleted;
            if (deleted < batch) {
                break;
            }
        }
        if (statements() instanceof MySqlStatements mysql) {
            autoCommitted(c -> mysql.purgeTokens(c, batch * 10), "purge used tokens");
        }
        return total;
    }

    /** A connection with an open transaction of its own, for a lock that lives as long as that transaction. */
    OwnTransaction openTransaction(String what) throws SQLException {
        Connection c = ownConnection(what);
        try {
            boolean autoCommit = c.getAutoCommit();
            if (autoCommit) {
                c.setAutoCommit(false);
            }
            return new OwnTransaction(c, autoCommit);
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /**
     * A connection of the provider's own with an open transaction. Auto-commit is switched off only where the pool
     * hands it out on (on MySQL/MariaDB each switch is a round trip), and switched back on at the end.
     */
    record OwnTransaction(Connection connection, boolean wasAutoCommit) {

        /** Rolls back, restores auto-commit, returns the connection to the pool. */
        void end() throws SQLException {
            try {
                connection.rollback();
                if (wasAutoCommit) {
                    connection.setAutoCommit(true);
                }
            } finally {
                connection.close();
            }
        }

        void endQuietly() {
            try {
                end();
            } catch (SQLException ignored) {
                // committed or failed already; the pool discards a broken connection
            }
        }
    }

    /**
     * A connection for work outside the caller's transaction. When there is no lease datasource of its own, the
     * main datasource must hand out a connection in auto-commit mode: one that is not, while the caller has a
     * transaction, is enlisted in it (a JTA datasource), and LEASE work there would commit or roll back with the
     * caller's transaction instead of on its own.
     */
    private Connection ownConnection(String what) throws SQLException {
        Connection c = lease.getConnection();
        try {
            if (!separateLease && !c.getAutoCommit() && callerHasTransaction()) {
                throw new IllegalStateException("cannot " + what + " outside the caller's transaction: the datasource's"
                        + " connection is enlisted in the active transaction. LEASE-scoped locks and inspect() need"
                        + " connections of their own while a JTA transaction is active: give the provider a datasource"
                        + " that does not join JTA transactions with JdbcLockProvider.builder(ds).leaseDataSource(nonJta)"
                        + " (in Jakarta EE, a @DataSourceDefinition with transactional = false on the same database), or"
                        + " lock in TRANSACTION or AUTO scope");
            }
            return c;
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** Asks the transaction support found on the caller's thread; a thread that finds none does not cache that. */
    private boolean callerHasTransaction() {
        TransactionSupport t = transactions;
        if (t == null) {
            t = TransactionSupport.discover();
            if (t != TransactionSupport.none()) {
                transactions = t;
            }
        }
        return t.current().isPresent();
    }

    static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // the connection is broken; the pool discards it
        }
    }

    LockBackendException failure(String what, SQLException e, boolean callerTx) {
        Statements s = statements;
        if (callerTx && s != null && s.abortsTransaction(e)) {
            return new LockBackendException("could not " + what + " on table " + table + ": the database chose the caller's"
                    + " transaction as a deadlock victim and rolled it back; retry the whole transaction (" + e.getMessage() + ")", e);
        }
        return new LockBackendException("could not " + what + " on table " + table + " (" + describeDialect() + "): "
                + e.getMessage() + " [SQLState " + e.getSQLState() + ", code " + e.getErrorCode() + "]", e);
    }

    private String describeDialect() {
        JdbcDialect d = dialect();
        return d == null ? "database not yet reached" : d.name().toLowerCase(java.util.Locale.ROOT);
    }
}
