package io.txlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * The SQL of one dialect for one lock table. The statements every dialect shares are written here once, from
 * a few expressions each dialect supplies (the database clock, the next fencing token); what differs (the locking
 * read, returning the new token, bounding a lock wait, error codes) is in one small subclass per dialect,
 * so all the SQL of one database reads in one place. Lock names and owners are always bound parameters; the
 * table name is a validated identifier.
 *
 * <p>Tokens come from a sequence (or an AUTO_INCREMENT table) that no rollback takes back, so a name's fencing
 * token never repeats, even when a grant made inside a transaction is rolled back. The row strategies write the
 * token to {@code version}; a row lock writes nothing.
 */
abstract class Statements {

    /**
     * How long the reaper keeps a FREE row after its last release: deleting the row of a name in use would make
     * its next acquire create it again, and a zero-wait acquire could meet the reaper's row lock. Rows of
     * holders whose lease ran out, and expired claims, go as soon as they expire.
     */
    static final Duration FREE_RETENTION = Duration.ofMinutes(1);

    /** One lock wait never lasts longer than this; the core's loop waits again if the caller's wait is longer. */
    static final Duration MAX_SINGLE_WAIT = Duration.ofMinutes(10);

    final String table;
    final String selectState;
    final String casGrant;
    final String insertHeld;
    final String takeOver;
    final String insertFree;
    final String renew;
    final String free;
    final String delete;
    final String retoken;
    final String inspect;
    final String inspectRow;
    final String lockProbe;
    final String reapCandidates;
    final String reapDelete;
    final String claim;

    /** Where a waiting statement gets its lock-wait bound; see {@link #render}. */
    static final String WAIT = "{wait}";

    Statements(String table) {
        this.table = table;
        String grant = "state = 'HELD', owner_host = ?, owner_id = ?, hold_count = 1, acquired_at = " + now()
                + ", expires_at = " + nowPlusMillis() + ", updated_at = " + now();
        String columns = " (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)";
        this.selectState = "SELECT version, state, " + millisUntil("expires_at") + " FROM " + table + " WHERE name = ?";
        this.casGrant = "UPDATE " + table + " SET version = " + nextToken() + ", " + grant + WAIT
                + " WHERE name = ? AND version = ? AND (state = 'FREE' OR expires_at < " + now() + ")";
        this.insertHeld = insertInto() + table + columns + " SELECT " + nextToken() + ", ?, 'HELD', ?, ?, 1, " + now() + ", "
                + nowPlusMillis() + ", " + now() + WAIT + onConflictDoNothing();
        this.takeOver = "UPDATE " + table + " SET version = " + nextToken() + ", " + grant + WAIT
                + " WHERE name = ? AND (state = 'FREE' OR expires_at < " + now() + ")";
        this.insertFree = insertInto() + table + " (version, name, state, hold_count, expires_at, updated_at) SELECT "
                + nextToken() + ", ?, 'FREE', 0, " + now() + ", " + now() + WAIT + onConflictDoNothing();
        this.renew = "UPDATE " + table + " SET expires_at = " + nowPlusMillis() + ", updated_at = " + now()
                + " WHERE name = ? AND version = ? AND owner_id = ? AND state = 'HELD'";
        this.free = "UPDATE " + table + " SET state = 'FREE', owner_host = NULL, owner_id = NULL, hold_count = 0,"
                + " expires_at = " + now() + ", updated_at = " + now()
                + " WHERE name = ? AND version = ? AND owner_id = ? AND state = 'HELD'";
        this.delete = "DELETE FROM " + table + " WHERE name = ? AND version = ? AND owner_id = ?";
        this.retoken = "UPDATE " + table + " SET version = " + nextToken() + " WHERE name = ? AND version = ?";
        this.inspect = "SELECT version, owner_host, owner_id, hold_count, acquired_at, expires_at FROM " + table
                + " WHERE name = ? AND state = 'HELD' AND (expires_at IS NULL OR expires_at >= " + now() + ")";
        this.inspectRow = "SELECT name, state, version, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at"
                + " FROM " + table + " WHERE name = ? AND state = 'HELD' AND (expires_at IS NULL OR expires_at >= " + now() + ")";
        this.lockProbe = "SELECT 1 FROM " + table + " WHERE name = ? FOR UPDATE SKIP LOCKED";
        String reapable = "expires_at < " + now() + " AND (state = 'HELD' OR expires_at < "
                + nowPlusMillis().replace("?", Long.toString(-FREE_RETENTION.toMillis())) + ")";
        this.reapCandidates = "SELECT name FROM " + table + " WHERE " + reapable
                + " ORDER BY expires_at LIMIT ? FOR UPDATE SKIP LOCKED";
        this.reapDelete = "DELETE FROM " + table + " WHERE name = ? AND " + reapable;
        this.claim = insertClaim("INSERT INTO " + table + columns + " VALUES (0, ?, 'HELD', ?, ?, 1, " + now() + ", "
                + nowPlusMillis() + ", " + now() + ")" + WAIT);
    }

    /** @return the database clock: the server's current time, never the client's */
    abstract String now();

    /** @return the database clock plus {@code ?} milliseconds */
    abstract String nowPlusMillis();

    /** @return milliseconds from the database clock until {@code column} (negative if past, null if null) */
    abstract String millisUntil(String column);

    /** @return the next fencing token as an SQL expression, or {@code ?} if {@link #tokened} binds it first */
    abstract String nextToken();

    /** @return the database clock ({@link #now()}) in microseconds since 1970-01-01 UTC, as an SQL expression */
    abstract String epochMicros();

    /** @return a query for the next fencing token and the database clock; run {@link #tokenInsert()} just before it */
    String selectTokenAndNow() {
        return "SELECT " + nextToken() + ", " + epochMicros();
    }

    /** @return a statement to run just before {@link #selectTokenAndNow()} in the same transaction, or null */
    String tokenInsert() {
        return null;
    }

    /** @return a query for the newest used token row (MySQL's token table), or null where tokens need no purging */
    String newestToken() {
        return null;
    }

    /** @return a delete of up to {@code batch} token rows below {@code ?} (MySQL's token table) */
    String purgeTokensBelow(int batch) {
        throw new UnsupportedOperationException("tokens come from a sequence");
    }

    /**
     * @param maxBlock the longest wait
     * @return how to bound every lock wait of the session, rather than of one statement
     */
    abstract LockTableSql.SessionWait sessionWait(Duration maxBlock);

    /** @return the start of an insert up to the table name; MySQL's ignores duplicate keys */
    String insertInto() {
        return "INSERT INTO ";
    }

    /** @return a clause that turns a duplicate-key insert into "no row" without an error, or "" */
    String onConflictDoNothing() {
        return "";
    }

    /**
     * The claim statement of {@link JdbcClaims}: {@code insert} (a claim row: HELD, owner {@code ?}, token 0,
     * expiring after {@code ?} milliseconds of retention), turned into an insert that, on a duplicate key, waits
     * for an uncommitted claim's transaction and then reports the duplicate without failing the caller's
     * transaction. It must report one changed row for a new claim and any other count (or a duplicate-key error)
     * for a duplicate: see {@link #claim(Connection, String, Object...)}.
     *
     * @param insert {@code INSERT INTO table (…) VALUES (…)} followed by {@link #WAIT}
     * @return the statement; by default {@code insert} itself, whose duplicate-key error means "claimed before"
     */
    String insertClaim(String insert) {
        return insert;
    }

    /**
     * @return whether a claim must not wait in the database for a concurrent claim's transaction, but try again
     *     without waiting until it ended; see {@link MySqlStatements#claimPolls()}
     */
    boolean claimPolls() {
        return false;
    }

    /**
     * Runs a claim statement.
     *
     * @return true if this statement inserted the claim, false if the key was claimed before
     */
    boolean claim(Connection c, String sql, Object... params) throws SQLException {
        try {
            return update(c, sql, params) == 1;
        } catch (SQLException e) {
            if (duplicateKey(e)) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Takes the row lock of a name's existing row and draws a fencing token while holding it: the
     * {@link io.txlock.Strategy#SELECT_FOR_UPDATE} grant. The token is drawn after the lock, never before
     * waiting for it, so it is greater than the token of the holder it waited for. Writes nothing: the row lock is
     * the lock, and it ends with the transaction.
     *
     * @param maxBlock the longest wait for the row lock
     * @param callerTx the connection is in the caller's transaction: leave it usable and its settings as they were
     * @return the token; empty if the name has no row; null if another transaction held the row lock all along
     */
    abstract OptionalLong lockRow(Connection c, String name, Duration maxBlock, boolean callerTx) throws SQLException;

    /**
     * Runs {@code sql}, whose first assignment or value is {@code version = nextToken()}, with {@code params}.
     *
     * @return the new token, or empty if no row was granted
     */
    abstract OptionalLong tokened(Connection c, String sql, Object... params) throws SQLException;

    /**
     * Gives a grant its fencing token once the caller holds the lock. The statement that won the lock drew its
     * token before it won (before it waited for a row lock, or before its insert found the name free), so another
     * holder may have won and drawn a greater token in between; a token drawn while holding is greater than that
     * of every earlier holder, who drew theirs while holding, before they released.
     *
     * @param version the token the winning statement wrote
     * @return the grant's token, or empty if the row no longer carries {@code version}
     */
    OptionalLong retoken(Connection c, String name, long version) throws SQLException {
        return tokened(c, retoken, name, version);
    }

    /**
     * Runs {@code call}, whose waiting statements were {@link #render rendered} with the same arguments, so that
     * no lock wait in it lasts longer than {@code maxBlock}.
     *
     * @param maxBlock the longest wait
     * @param callerTx the connection is in the caller's transaction: leave it usable and its settings as they were
     * @return the result, or null if a lock wait ran out (or the database chose this statement as deadlock victim
     *     without rolling back the transaction)
     */
    abstract <T> T bounded(Connection c, Duration maxBlock, boolean callerTx, SqlCall<T> call) throws SQLException;

    /**
     * Renders a statement that may wait for a row lock: {@link #WAIT} becomes this dialect's per-statement bound,
     * if it has one; the rest of the bound is {@link #bounded}'s job.
     *
     * @param template a statement containing {@link #WAIT}
     * @param maxBlock the longest wait
     * @param callerTx whether it runs in the caller's transaction
     * @return SQL to prepare
     */
    String render(String template, Duration maxBlock, boolean callerTx) {
        return template.replace(WAIT, "");
    }

    /**
     * Ends the transaction of a LEASE-scoped row lock, which wrote nothing: by default a rollback, which needs no
     * durable log write (a commit after a row lock does, on PostgreSQL).
     */
    void endRowLock(Connection c) throws SQLException {
        c.rollback();
    }

    /** @return whether the error means "another transaction holds it": lock wait timeout, NOWAIT, deadlock, serialization */
    abstract boolean lockUnavailable(SQLException e);

    /** @return whether the error is a unique-key violation */
    abstract boolean duplicateKey(SQLException e);

    /** @return whether the database rolled back the whole transaction, not just the statement (deadlock victims) */
    boolean abortsTransaction(SQLException e) {
        return false;
    }

    /** @return {@code maxBlock} clamped to {@link #MAX_SINGLE_WAIT}, in milliseconds */
    static long waitMillis(Duration maxBlock) {
        return Math.min(maxBlock.toMillis(), MAX_SINGLE_WAIT.toMillis());
    }

    // ---- helpers for subclasses and strategies

    static PreparedStatement prepare(Connection c, String sql, Object... params) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        try {
            CancellableStatements.track(ps);
            bind(ps, 1, params);
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
        return ps;
    }

    static void bind(PreparedStatement ps, int first, Object... params) throws SQLException {
        for (int i = 0; i < params.length; i++) {
            Object p = params[i];
            if (p instanceof Long l) {
                ps.setLong(first + i, l);
            } else if (p instanceof Integer n) {
                ps.setInt(first + i, n);
            } else {
                ps.setString(first + i, (String) p);
            }
        }
    }

    static int update(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, params)) {
            return ps.executeUpdate();
        }
    }

    /**
     * Runs a query with {@code execute()}, not {@code executeQuery()}: MySQL Connector/J refuses the latter for a
     * query that starts with MariaDB's {@code SET STATEMENT … FOR}, which it takes for a statement without results.
     */
    static OptionalLong queryLong(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, params)) {
            if (!ps.execute()) {
                throw new SQLException("expected a result set from " + sql);
            }
            try (ResultSet rs = ps.getResultSet()) {
                return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
            }
        }
    }

    /** The row of a name as the acquire strategies see it. */
    record RowState(long version, boolean held, Long millisLeft) {
        boolean expired() {
            return millisLeft != null && millisLeft < 0;
        }
    }

    /**
     * The row as the row strategies must see it before granting: the latest committed state. A plain read
     * does, except in a MySQL REPEATABLE READ transaction, whose snapshot would never show the row freed.
     */
    RowState readState(Connection c, io.txlock.spi.LockRequest r) throws SQLException {
        return readState(c, r.name());
    }

    /**
     * @return whether a row created inside a caller's transaction that then rolls back can deadlock the
     *     transactions waiting for it (InnoDB turns their waits into gap locks), so that rows must be created
     *     outside the caller's transaction
     */
    boolean rowsCreatedInACallerTransactionCanDeadlock() {
        return false;
    }

    /**
     * Creates a name's row FREE unless it exists.
     *
     * @param maxBlock how long to wait for another transaction's uncommitted row of the same name
     * @param callerTx the connection is in the caller's transaction: leave it usable and its settings as they were
     * @return true when the row is there (created, or found); false if the wait ran out
     */
    boolean createFreeRow(Connection c, String name, Duration maxBlock, boolean callerTx) throws SQLException {
        return bounded(c, maxBlock, callerTx, () -> {
            try {
                tokened(c, render(insertFree, maxBlock, callerTx), name);
            } catch (SQLException e) {
                if (!duplicateKey(e)) {
                    throw e;
                }
            }
            return Boolean.TRUE;
        }) != null;
    }

    /** @return whether {@link #readState(Connection, io.txlock.spi.LockRequest)} creates and locks a missing row first */
    boolean locksBeforeReading(boolean callerTx) {
        return false;
    }

    RowState readState(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = prepare(c, selectState, name); ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return null;
            }
            long left = rs.getLong(3);
            return new RowState(rs.getLong(1), "HELD".equals(rs.getString(2)), rs.wasNull() ? null : left);
        }
    }

    /** @return the holder of a name as recorded in its row, if it is held and its lease has not run out */
    java.util.Optional<io.txlock.LockInfo> readInfo(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = prepare(c, inspect, name); ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return java.util.Optional.empty();
            }
            return java.util.Optional.of(new io.txlock.LockInfo(name, rs.getString(2), rs.getString(3), rs.getLong(1),
                    instant(rs, 5), instant(rs, 6), Math.max(1, rs.getInt(4))));
        }
    }

    /** @return whether the name's row exists and another transaction holds its row lock */
    boolean rowLockedByOther(Connection c, String name) throws SQLException {
        if (queryLong(c, "SELECT 1 FROM " + table + " WHERE name = ?", name).isEmpty()) {
            return false;
        }
        return queryLong(c, lockProbe, name).isEmpty();
    }

    /** Deletes up to {@code batch} rows whose lease or retention ran out, skipping rows locked right now. */
    int reap(Connection c, int batch) throws SQLException {
        java.util.List<String> names = new java.util.ArrayList<>();
        try (PreparedStatement ps = prepare(c, reapCandidates, batch); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        if (names.isEmpty()) {
            return 0;
        }
        try (PreparedStatement ps = c.prepareStatement(reapDelete)) {
            for (String name : names) {
                ps.setString(1, name);
                ps.addBatch();
            }
            int deleted = 0;
            for (int n : ps.executeBatch()) {
                deleted += n == java.sql.Statement.SUCCESS_NO_INFO ? 1 : Math.max(0, n);
            }
            return deleted;
        }
    }

    /** @return a timestamp column written with {@link #now()} as an instant */
    java.time.Instant instant(ResultSet rs, int column) throws SQLException {
        java.time.OffsetDateTime t = rs.getObject(column, java.time.OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    /** A unit of JDBC work. */
    @FunctionalInterface
    interface SqlCall<T> {
        T run() throws SQLException;
    }
}
