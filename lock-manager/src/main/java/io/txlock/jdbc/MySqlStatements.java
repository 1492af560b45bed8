package io.txlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.OptionalLong;
import java.util.Set;

/**
 * MySQL 8 (and the base of {@link MariaDbStatements}). The clock is {@code UTC_TIMESTAMP(6)}, stored in
 * DATETIME(6) columns, so session time zones never matter. MySQL has no sequences: a token is the
 * AUTO_INCREMENT id of a row inserted into {@code <table>_token}, which InnoDB never hands out twice. In the
 * caller's transaction a row is locked with {@code INSERT … ON DUPLICATE KEY UPDATE}, which locks the existing row
 * exclusively: unlike {@code SELECT … FOR UPDATE} on a missing row, it takes no gap lock, so concurrent first uses
 * of a name cannot deadlock. Lock waits are bounded by the session's {@code innodb_lock_wait_timeout}, in whole
 * seconds ({@link #sessionWait}).
 */
class MySqlStatements extends Statements {

    /** Vendor codes meaning "held by another transaction"; the two MySQL drivers disagree on SQLStates. */
    private static final Set<Integer> LOCK_UNAVAILABLE = Set.of(
            1205, // ER_LOCK_WAIT_TIMEOUT, also MariaDB's NOWAIT
            1213, // ER_LOCK_DEADLOCK
            1969, // MariaDB ER_STATEMENT_TIMEOUT (max_statement_time)
            3572); // MySQL ER_LOCK_NOWAIT

    private final String insertToken;
    private final String ensureLockedRow;
    private final String selectStateForUpdate;
    private final String lockRow;
    /** A zero wait: MySQL's session lock wait is at least one second. */
    private final String lockRowNoWait;

    MySqlStatements(String table) {
        super(table);
        this.insertToken = "INSERT INTO " + table + "_token () VALUES ()";
        this.ensureLockedRow = "INSERT INTO " + table + " (version, name, state, hold_count, expires_at, updated_at)"
                + " VALUES (0, ?, 'FREE', 0, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))" + WAIT
                + " ON DUPLICATE KEY UPDATE hold_count = hold_count";
        this.selectStateForUpdate = selectState + " FOR UPDATE";
        this.lockRow = "SELECT 1 FROM " + table + " WHERE name = ? FOR UPDATE" + WAIT;
        this.lockRowNoWait = "SELECT 1 FROM " + table + " WHERE name = ? FOR UPDATE NOWAIT";
    }

    /**
     * In the caller's transaction: create the row if missing and lock it exclusively (no gap lock, so two
     * transactions cannot deadlock on a missing row), then read its current state with a locking read (a plain
     * read would see the transaction's old snapshot under REPEATABLE READ and never see the row freed).
     */
    @Override
    RowState readState(Connection c, io.txlock.spi.LockRequest r) throws SQLException {
        if (!r.transactional()) {
            return super.readState(c, r);
        }
        update(c, render(ensureLockedRow, r.maxBlock(), true), r.name());
        try (PreparedStatement ps = prepare(c, selectStateForUpdate, r.name()); ResultSet rs = ps.executeQuery()) {
            rs.next();
            long left = rs.getLong(3);
            return new RowState(rs.getLong(1), "HELD".equals(rs.getString(2)), rs.wasNull() ? null : left);
        }
    }

    @Override
    boolean rowsCreatedInACallerTransactionCanDeadlock() {
        return true;
    }

    @Override
    boolean locksBeforeReading(boolean callerTx) {
        return callerTx;
    }

    @Override
    String now() {
        return "UTC_TIMESTAMP(6)";
    }

    @Override
    String nowPlusMillis() {
        return "TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6))";
    }

    @Override
    String millisUntil(String column) {
        return "TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), " + column + ") DIV 1000";
    }

    @Override
    String nextToken() {
        return "?";
    }

    @Override
    String epochMicros() {
        return "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))";
    }

    @Override
    String selectTokenAndNow() {
        return "SELECT LAST_INSERT_ID(), " + epochMicros();
    }

    @Override
    String tokenInsert() {
        return insertToken;
    }

    /** {@code innodb_lock_wait_timeout} of the session, in whole seconds, at least 1. */
    @Override
    LockTableSql.SessionWait sessionWait(Duration maxBlock) {
        return new LockTableSql.SessionWait("SELECT @@SESSION.innodb_lock_wait_timeout",
                "SET SESSION innodb_lock_wait_timeout = {}", String.valueOf(Math.max(1, (waitMillis(maxBlock) + 999) / 1000)), false);
    }

    /** A duplicate key is "no row", not an error: the MariaDB driver logs every error packet as a warning. */
    @Override
    String insertInto() {
        return "INSERT IGNORE INTO ";
    }

    /**
     * {@code ON DUPLICATE KEY UPDATE} locks a committed duplicate's row exclusively and reports it without an
     * error (a plain {@code INSERT} or {@code INSERT IGNORE} takes a shared lock on it). The update must change
     * the row: then the affected-row count tells a duplicate (2) from a new claim (1), whatever the driver's
     * found-rows setting. {@code hold_count} thus counts the submissions that saw the claim, in committed
     * transactions.
     */
    @Override
    String insertClaim(String insert) {
        return insert + " ON DUPLICATE KEY UPDATE hold_count = hold_count + 1";
    }

    /**
     * InnoDB must never queue two claims behind an uncommitted one: when that one rolls back, its row vanishes and
     * the queued record locks are inherited as gap locks by every waiter; each waiter's insert then waits for the
     * others' gap lock, a deadlock (seen on MariaDB 10.11 under REPEATABLE READ, with {@code INSERT … ON DUPLICATE
     * KEY UPDATE} as with a plain {@code INSERT}). So a claim asks with a lock wait of zero and, while the key's
     * first claim is uncommitted, tries again after a short pause. MariaDB has a zero wait; MySQL's shortest is
     * one second, so there a rollback within that second can still make a waiting duplicate a deadlock victim.
     */
    @Override
    boolean claimPolls() {
        return true;
    }

    /**
     * Locks the row, then draws the token: an insert into the token table, in the same transaction. In the caller's
     * transaction the row is locked with the upsert of {@link #readState(Connection, io.txlock.spi.LockRequest)}, never
     * with a locking read, which would take a gap lock where the row is missing.
     */
    @Override
    OptionalLong lockRow(Connection c, String name, Duration maxBlock, boolean callerTx) throws SQLException {
        if (!callerTx && waitMillis(maxBlock) <= 0) {
            try {
                return queryLong(c, lockRowNoWait, name).isPresent() ? OptionalLong.of(newToken(c)) : OptionalLong.empty();
            } catch (SQLException e) {
                if (lockUnavailable(e)) {
                    return null;
                }
                throw e;
            }
        }
        Boolean locked = bounded(c, maxBlock, callerTx, () -> {
            if (callerTx) {
                update(c, render(ensureLockedRow, maxBlock, true), name);
                return true;
            }
            return queryLong(c, render(lockRow, maxBlock, false), name).isPresent();
        });
        if (locked == null) {
            return null;
        }
        return locked ? OptionalLong.of(newToken(c)) : OptionalLong.empty();
    }

    @Override
    OptionalLong tokened(Connection c, String sql, Object... params) throws SQLException {
        long token = newToken(c);
        Object[] all = new Object[params.length + 1];
        all[0] = token;
        System.arraycopy(params, 0, all, 1, params.length);
        return update(c, sql, all) > 0 ? OptionalLong.of(token) : OptionalLong.empty();
    }

    /** @return a new token: the AUTO_INCREMENT id of a token row inserted in the connection's transaction */
    long newToken(Connection c) throws SQLException {
        return insertedToken(c, insertToken).getAsLong();
    }

    /** @return the token row's AUTO_INCREMENT id, or empty if {@code sql} inserted no row */
    static OptionalLong insertedToken(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS)) {
            CancellableStatements.track(ps);
            bind(ps, 1, params);
            if (ps.executeUpdate() == 0) {
                return OptionalLong.empty();
            }
            try (ResultSet keys = ps.getGeneratedKeys()) {
                keys.next();
                return OptionalLong.of(keys.getLong(1));
            }
        }
    }

    @Override
    String newestToken() {
        return "SELECT MAX(id) FROM " + table + "_token";
    }

    @Override
    String purgeTokensBelow(int batch) {
        return "DELETE FROM " + table + "_token WHERE id < ? LIMIT " + batch;
    }

    /** Deletes token rows below the newest; InnoDB keeps the AUTO_INCREMENT counter anyway. */
    int purgeTokens(Connection c, int batch) throws SQLException {
        OptionalLong newest = queryLong(c, newestToken());
        if (newest.isEmpty() || newest.getAsLong() == 0) {
            return 0;
        }
        return update(c, purgeTokensBelow(batch), newest.getAsLong());
    }

    @Override
    <T> T bounded(Connection c, Duration maxBlock, boolean callerTx, SqlCall<T> call) throws SQLException {
        LockTableSql.SessionWait wait = sessionWait(maxBlock);
        String previous = wait.readSetting(c);
        wait.apply(c, wait.value());
        try {
            return call.run();
        } catch (SQLException e) {
            if (lockUnavailable(e) && !(callerTx && abortsTransaction(e))) {
                return null;
            }
            throw e;
        } finally {
            wait.apply(c, previous);
        }
    }

    @Override
    boolean lockUnavailable(SQLException e) {
        return LOCK_UNAVAILABLE.contains(e.getErrorCode()) || "40001".equals(e.getSQLState());
    }

    @Override
    boolean duplicateKey(SQLException e) {
        return e.getErrorCode() == 1062;
    }

    @Override
    boolean abortsTransaction(SQLException e) {
        return e.getErrorCode() == 1213;
    }

    @Override
    java.time.Instant instant(ResultSet rs, int column) throws SQLException {
        LocalDateTime t = rs.getObject(column, LocalDateTime.class);
        return t == null ? null : t.toInstant(ZoneOffset.UTC);
    }
}
