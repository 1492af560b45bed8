package io.txlock.jdbc;

import io.txlock.LockBackendException;
import io.txlock.spi.TransactionSupport;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;
import javax.sql.DataSource;

/** Connections and error translation shared by the three strategies. */
final class JdbcAccess {

    /** SQLStates of "no such table": PostgreSQL, MySQL/MariaDB (also code 1146), H2 (with and without candidates). */
    private static final Set<String> MISSING_TABLE = Set.of("42P01", "42S02", "42S03", "42S04");

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
    private volatile LockTableSql sql;
    private volatile JdbcDialect dialect;
    private final BoundedConnect boundedConnect;
    private final java.util.function.IntSupplier leasePoolSize;

    JdbcAccess(DataSource transactional, DataSource lease, JdbcDialect dialect, String table) {
        this.transactional = transactional;
        this.lease = lease;
        this.separateLease = lease != transactional;
        this.configuredDialect = dialect;
        this.table = table;
        this.boundedConnect = new BoundedConnect(table);
        this.leasePoolSize = BoundedConnect.maximumSize(lease);
    }

    String table() {
        return table;
    }

    /**
     * @return the dialect's statements; the first call detects the dialect (unless configured) and checks that the
     *     table exists, on a connection of the transactional datasource
     * @throws IllegalArgumentException if the table does not exist
     * @throws LockBackendException if the database cannot be reached
     */
    Statements statements() {
        Statements s = statements;
        return s != null ? s : statements(transactional);
    }

    /** @return the dialect's statements as {@link #statements()}, in the form the row-lease strategies take them */
    LockTableSql sql() {
        LockTableSql s = sql;
        if (s == null) {
            statements();
            s = sql;
        }
        return s;
    }

    /**
     * Detects the dialect and checks the table now, on a connection of the lease datasource (which joins no caller's
     * transaction where the provider has a lease datasource of its own).
     *
     * @throws IllegalArgumentException if the table does not exist
     * @throws LockBackendException if the database cannot be reached
     */
    void checkTable() {
        statements(lease);
    }

    private synchronized Statements statements(DataSource from) {
        Statements s = statements;
        if (s == null) {
            try (Connection c = connect(from)) {
                JdbcDialect d = configuredDialect != null ? configuredDialect.requireMatches(c.getMetaData()) : JdbcDialect.detect(c.getMetaData());
                s = Statements.of(d, table);
                requireTable(c, d, s);
                sql = new LockTableSql(d, s);
                dialect = d;
                statements = s;
            } catch (SQLException e) {
                throw failure("reach the database", e, false);
            }
        }
        return s;
    }

    /**
     * Changes nothing and commits nothing, so it is safe inside any transaction: at a first use inside a caller's
     * transaction it runs on the caller's own connection (a pool sized to its clients may have no second one), in a
     * savepoint where the dialect has one (PostgreSQL, where a failed statement would abort the transaction).
     */
    private void requireTable(Connection c, JdbcDialect d, Statements s) throws SQLException {
        Statements.SqlCall<Void> probe = () -> {
            try (Statement query = c.createStatement()) {
                query.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0").close();
            }
            return null;
        };
        try {
            if (c.getAutoCommit()) {
                probe.run();
            } else {
                s.inSavepoint(SqlSession.of(c), probe);
            }
        } catch (SQLException e) {
            if (MISSING_TABLE.contains(e.getSQLState()) || e.getErrorCode() == 1146) {
                throw new IllegalArgumentException("lock table " + table + " does not exist in the " + d.name().toLowerCase(Locale.ROOT)
                        + " database: create it with JdbcLockSchema.create(dataSource, JdbcDialect." + d + ", \"" + table
                        + "\"), or with the txlock-sql script " + d.scriptLocation() + "/" + JdbcLockSchema.SCRIPT
                        + " (as a Flyway or Liquibase migration), or name an existing lock table with table(…)"
                        + vanishingDatabase(c) + " (" + e.getMessage() + ")", e);
            }
            throw e;
        }
    }

    /** @return a hint where the database is an in-memory H2 one that vanishes with its last connection */
    private static String vanishingDatabase(Connection c) {
        try {
            String url = c.getMetaData().getURL();
            if (url != null && url.contains(":mem:") && !url.toUpperCase(Locale.ROOT).contains("DB_CLOSE_DELAY")) {
                return "; the in-memory H2 database " + url + " vanishes with its last connection, taking the table with it:"
                        + " add ;DB_CLOSE_DELAY=-1 to its URL";
            }
        } catch (SQLException ignored) {
            // no hint then
        }
        return "";
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
            autoCommitted(c -> st.createFreeRow(SqlSession.of(c), name, java.time.Duration.ZERO, false), "create the row of '" + name + "' before locking it");
        }
        return inOpenCallerTransaction(name, work, what);
    }

    /** Runs work on the caller's transactional connection, which must be in a transaction (not in auto-commit mode). */
    <T> T inOpenCallerTransaction(String name, SqlWork<T> work, String what) {
        return inCallerTransaction(c -> {
            if (c.getAutoCommit()) {
                throw new IllegalStateException("cannot lock '" + name + "' in the caller's transaction: the connection the"
                        + " datasource hands out is in auto-commit mode, so the lock would end with its own statement while"
                        + " the caller counts on it until commit. Give the provider the datasource whose connections join the"
                        + " transaction: the container's JTA datasource (not a non-JTA one), or JdbcLockProvider.builder(tx)"
                        + " with the JdbcTransactions tx given to LockManager.Builder.transactions; or lock in LockScope.LEASE");
            }
            return work.run(c);
        }, what);
    }

    /** Runs work on the caller's transactional connection: the container enlists it; never commits. */
    <T> T inCallerTransaction(SqlWork<T> work, String what) {
        try (Connection c = connect(transactional)) {
            return work.run(c);
        } catch (SQLException e) {
            throw failure(what, e, true);
        }
    }

    /** Runs work in its own short transaction, committed before returning. */
    <T> T autoCommitted(SqlWork<T> work, String what) {
        try (Connection c = ownConnection(what)) {
            try {
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
            } finally {
                CancellableStatements.settle();
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
        int total = LockTableReaper.reapAll(() -> inOwnTransaction(c -> statements().reap(c, batch), "reap expired rows"), batch);
        Statements st = statements();
        if (st.newestToken() != null) {
            autoCommitted(c -> st.purgeUsedTokens(SqlSession.of(c), batch * 10), "purge used tokens");
        }
        return total;
    }

    /** A connection with an open transaction of its own, for a lock that lives as long as that transaction. */
    OwnTransaction openTransaction(String what) throws SQLException {
        return openTransaction(() -> what, null);
    }

    /**
     * @param what what the connection is for, said only if it cannot be had (built then, not at every lock)
     * @param heldByLocks connections the caller's locks hold now, each until released
     * @param wait what is left of the caller's wait: how long to wait for a connection of a pool the locks may have
     *     taken whole (see {@link BoundedConnect#within})
     */
    OwnTransaction openTransaction(Supplier<String> what, int heldByLocks, java.time.Duration wait) throws SQLException {
        return openTransaction(what, BoundedConnect.within(leasePoolSize, heldByLocks, wait));
    }

    private OwnTransaction openTransaction(Supplier<String> what, java.time.Duration connectWithin) throws SQLException {
        Connection c = ownConnection(what, connectWithin);
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
     * A connection of the provider's own, as the pool hands it out, for a lock that lives as long as its session
     * ({@link io.txlock.Strategy#ADVISORY}): its auto-commit mode is left as it is ({@code wasAutoCommit} false, so
     * that {@link OwnTransaction#close()} restores nothing). Without a lease datasource, only a connection in
     * auto-commit mode is surely not the caller's transaction's own (a transaction-bound datasource hands that one
     * out), so none other is taken.
     */
    OwnTransaction openSession(Supplier<String> what) throws SQLException {
        Connection c = ownConnection(what, null);
        try {
            if (!separateLease && !c.getAutoCommit()) {
                throw new IllegalStateException("cannot " + what.get() + ": an advisory lock held by a session needs a connection"
                        + " of its own, kept until the lock ends, and the provider's datasource handed out one that is not in"
                        + " auto-commit mode, which may be the caller's transaction's own. Give the provider a datasource for"
                        + " such connections: JdbcLockProvider.builder(tx) over JdbcTransactions, or leaseDataSource(…) (in"
                        + " Jakarta EE, a non-JTA datasource on the same database)");
            }
            return new OwnTransaction(c, false);
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /**
     * A connection of the provider's own with an open transaction. Auto-commit is switched off only where the pool
     * hands it out on (on MySQL/MariaDB each switch is a round trip), and switched back on at the end.
     */
    static final class OwnTransaction implements RowLock.Holder {

        private final Connection connection;
        private final boolean wasAutoCommit;
        private JdbcSession session;
        private Object lockKey;

        OwnTransaction(Connection connection, boolean wasAutoCommit) {
            this.connection = connection;
            this.wasAutoCommit = wasAutoCommit;
        }

        Connection connection() {
            return connection;
        }

        /** @return the key of the lock the connection holds ({@link #lockKey(Object)}), or null */
        Object lockKey() {
            return lockKey;
        }

        /** @param key the key of the lock the connection holds (an advisory lock's), so that its release need not compute it again */
        void lockKey(Object key) {
            this.lockKey = key;
        }

        /**
         * @return the session on the connection, which keeps its prepared statements on it for the next borrower
         *     ({@link ReusedStatements}): the provider ends every transaction on it itself
         */
        @Override
        public JdbcSession session() {
            JdbcSession s = session;
            if (s == null) {
                s = JdbcSession.reusing(connection);
                session = s;
            }
            return s;
        }

        /** @return whether the connection was not yet returned to the pool */
        @Override
        public boolean isOpen() {
            try {
                return !connection.isClosed();
            } catch (SQLException e) {
                return false;
            }
        }

        /** Rolls back, restores auto-commit, returns the connection to the pool. */
        @Override
        public void end() throws SQLException {
            CancellableStatements.settle();
            try {
                connection.rollback();
                if (wasAutoCommit) {
                    connection.setAutoCommit(true);
                }
            } finally {
                connection.close();
            }
        }

        /** The transaction was ended already (its row lock freed): restores auto-commit, returns the connection. */
        @Override
        public void close() throws SQLException {
            CancellableStatements.settle();
            try {
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
        return ownConnection(() -> what, null);
    }

    private Connection ownConnection(Supplier<String> what, java.time.Duration connectWithin) throws SQLException {
        Connection c = connectWithin == null ? connect(lease) : boundedConnect.connect(lease, connectWithin);
        try {
            if (!separateLease && !c.getAutoCommit() && callerHasTransaction()) {
                throw new IllegalStateException("cannot " + what.get() + " outside the caller's transaction: the datasource's"
                        + " connection is enlisted in the active transaction. LEASE-scoped locks and inspect() need"
                        + " connections of their own while a JTA transaction is active, and so do ADVISORY locks on"
                        + " MySQL/MariaDB in every scope (GET_LOCK belongs to a session): give the provider a datasource"
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

    /**
     * @return a connection of {@code dataSource}
     * @throws SQLException if it failed, also where it failed with an unchecked exception (a closed pool, say)
     */
    static Connection connect(DataSource dataSource) throws SQLException {
        try {
            return dataSource.getConnection();
        } catch (RuntimeException e) {
            throw new SQLException("the datasource failed to hand out a connection: " + e, "08001", e);
        }
    }

    static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // the pool discards a broken connection
        }
    }

    /** Stops the threads that wait for pooled connections on behalf of callers. */
    void close() {
        boundedConnect.close();
    }

    /**
     * @param lease the lock's lease: the check waits at most a third of it (1 to 30 s)
     * @return whether the connection holding a lock still answers (a lock of its transaction or session lives with it)
     */
    static boolean alive(Connection c, java.time.Duration lease) {
        try {
            return c.isValid((int) Math.max(1, Math.min(30, lease.toSeconds() / 3)));
        } catch (SQLException e) {
            return false;
        }
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
        return d == null ? "database not yet reached" : d.name().toLowerCase(Locale.ROOT);
    }
}
