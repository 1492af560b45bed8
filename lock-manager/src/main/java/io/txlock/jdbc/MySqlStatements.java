package io.txlock.jdbc;

import java.sql.SQLException;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * MySQL 8 (InnoDB; how it runs is {@link InnoDbStatements}'). MySQL has no sequences: a token is the AUTO_INCREMENT
 * id of a row inserted into {@code <table>_token}, which InnoDB never hands out twice; the reaper purges used token
 * rows. A duplicate key is "no row", not an error ({@code INSERT IGNORE}: the MariaDB driver logs every error packet
 * as a warning). Lock waits are bounded by the session's {@code innodb_lock_wait_timeout}, in whole seconds
 * ({@link #sessionWait}), so a zero wait is {@code NOWAIT}.
 *
 * <p>Waiters of the row strategies queue in the name's user lock ({@link FairQueue}, as on MariaDB), with plain
 * statements only, as MySQL runs compound statements only in stored programs: a waiter blocks in {@code GET_LOCK}
 * ({@link #queueLock}) and, once it heads the queue, runs the compare-and-set ({@link #takeQueue}); a holder that
 * came through the queue frees its row, which commits, and then lets go of the queue lock ({@link #queueUnlock}),
 * two statements. An attempt outside
 * the queue draws its token only while nobody else queues for the name ({@link #tokenInsertUnqueued}), so it does not
 * touch a queued name's row (an InnoDB {@code UPDATE} locks the row it reads even when the gate in its {@code WHERE}
 * fails, and would hold up the head's compare-and-set); its statement keeps the gate, for a waiter that queued in
 * between.
 */
final class MySqlStatements extends InnoDbStatements {

    MySqlStatements(String table) {
        super(table);
    }

    @Override
    String insertHeld(Duration wait) {
        return sql("""
                INSERT IGNORE INTO {table} (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
                SELECT ?, ?, 'HELD', ?, ?, 1, UTC_TIMESTAMP(6), TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)),
                  UTC_TIMESTAMP(6)""");
    }

    @Override
    String takeOver(Duration wait) {
        return sql("""
                UPDATE {table} SET version = ?, state = 'HELD', owner_host = ?, owner_id = ?, hold_count = 1,
                  acquired_at = UTC_TIMESTAMP(6), expires_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)),
                  updated_at = UTC_TIMESTAMP(6)
                WHERE name = ? AND (state = 'FREE' OR expires_at < UTC_TIMESTAMP(6))""");
    }

    @Override
    String insertFree(Duration wait) {
        return sql("""
                INSERT IGNORE INTO {table} (version, name, state, hold_count, expires_at, updated_at)
                SELECT ?, ?, 'FREE', 0, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6)""");
    }

    @Override
    String retoken() {
        return sql("UPDATE {table} SET version = ? WHERE name = ? AND version = ?");
    }

    /** A token drawn by a statement of its own can only be drawn before the row is won: {@link #retoken} follows. */
    @Override
    boolean takeOverDrawsTokenUnderRowLock() {
        return false;
    }

    /** Draws the token ({@link #newToken}) and binds it as the statement's first parameter. */
    @Override
    OptionalLong tokened(SqlSession s, String sql, Object... params) throws SQLException {
        return withToken(s, newToken(s), sql, params);
    }

    /** Draws the token only while nobody else queues for the name ({@link #tokenInsertUnqueued}); else runs nothing. */
    @Override
    OptionalLong tokenedUnqueued(SqlSession s, String name, String sql, Object... params) throws SQLException {
        OptionalLong token = s.lastInsertId(tokenInsertUnqueued(), "SELECT LAST_INSERT_ID()", name);
        return token.isPresent() ? withToken(s, token.getAsLong(), sql, params) : token;
    }

    /** @return {@code token} if {@code sql}, with {@code token} bound first, changed a row; else empty */
    private static OptionalLong withToken(SqlSession s, long token, String sql, Object... params) throws SQLException {
        Object[] all = new Object[params.length + 1];
        all[0] = token;
        System.arraycopy(params, 0, all, 1, params.length);
        return s.update(sql, all) > 0 ? OptionalLong.of(token) : OptionalLong.empty();
    }

    /**
     * @return {@link #tokenInsert()} only while the name's queue lock is free or this session's: a token row, or none;
     *     parameter: name
     */
    String tokenInsertUnqueued() {
        return rendered("tokenInsertUnqueued", null, () -> sql("""
                INSERT INTO {table}_token (id)
                SELECT NULL FROM (SELECT %s AS k) AS txlock_key
                WHERE %s""".formatted(queueKey("?"), unqueued("txlock_key.k"))));
    }

    /** {@link #takeOver} gated as {@link #selectStateUnqueued()}: the queue's user lock is free, or this session's. */
    @Override
    String takeOverUnqueued(Duration wait) {
        return rendered("takeOverUnqueued", null, () -> sql("""
                UPDATE {table} SET version = ?, state = 'HELD', owner_host = ?, owner_id = ?, hold_count = 1,
                  acquired_at = UTC_TIMESTAMP(6), expires_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)),
                  updated_at = UTC_TIMESTAMP(6)
                WHERE name = ? AND (state = 'FREE' OR expires_at < UTC_TIMESTAMP(6))
                  AND (%s)""".formatted(unqueued(queueKey("name")))));
    }

    /** {@link #insertHeld} gated as {@link #selectStateUnqueued()}: the queue's user lock is free, or this session's. */
    @Override
    String insertHeldUnqueued(Duration wait) {
        return rendered("insertHeldUnqueued", null, () -> sql("""
                INSERT IGNORE INTO {table} (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
                SELECT ?, ?, 'HELD', ?, ?, 1, UTC_TIMESTAMP(6), TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)),
                  UTC_TIMESTAMP(6)
                FROM (SELECT %s AS k) AS txlock_key
                WHERE %s""".formatted(queueKey("?"), unqueued("txlock_key.k"))));
    }

    /**
     * {@link #queueLock} and, once the session holds the queue lock, the compare-and-set at once, as MariaDB's one
     * compound statement ({@link MariaDbStatements#queueLockAndTakeOver}) does: the release that woke the head freed
     * the row, for UNIQUE_INSERT too, so the head's first look is its compare-and-set, not its strategy's attempt.
     */
    @Override
    QueueTurn takeQueue(SqlSession s, io.txlock.spi.LockRequest r, Duration wait) throws SQLException {
        QueueTurn turn = super.takeQueue(s, r, wait);
        if (turn == null) {
            return null;
        }
        OptionalLong won = bounded(s, r.maxBlock(), false, () -> takeOverGrant(s, r));
        return new QueueTurn(turn.channel(), won == null ? OptionalLong.empty() : won);
    }

    /**
     * In whole seconds, rounded up, as MySQL's {@code GET_LOCK} takes them (MariaDB's takes fractions): a queued
     * waiter's turn to look at the row ignoring the queue, or to give up, comes up to a second late.
     */
    @Override
    String getLock(String key) {
        return "GET_LOCK(" + key + ", ?)";
    }

    /** The text as it is: lock waits are bounded by the session ({@link #sessionWait}). */
    @Override
    String waiting(Duration wait, String text) {
        return sql(text);
    }

    /** @return locks the name's row, if there is one; parameter: name */
    String lockRow() {
        return sql("SELECT 1 FROM {table} WHERE name = ? FOR UPDATE");
    }

    /** @return {@link #lockRow()} for a zero wait: MySQL's session lock wait is at least one second */
    String lockRowNoWait() {
        return sql("SELECT 1 FROM {table} WHERE name = ? FOR UPDATE NOWAIT");
    }

    /** {@code GET_LOCK}: 1 if it took the lock, 0 if the wait ran out. */
    @Override
    String advisoryLock(Duration wait) {
        return "SELECT GET_LOCK(?, ?)";
    }

    /** {@code GET_LOCK} waits in whole seconds on MySQL (rounded up). */
    @Override
    Object advisoryWait(Duration maxBlock) {
        return (Math.max(0, waitMillis(maxBlock)) + 999) / 1000;
    }

    /** {@link #advisoryLock}, then a token drawn while holding the lock ({@link #newToken}). */
    @Override
    OptionalLong takeAdvisoryLock(SqlSession s, Object key, Duration maxBlock, boolean callerTx) throws SQLException {
        OptionalLong got = super.takeAdvisoryLock(s, key, maxBlock, callerTx);
        return got.isPresent() && got.getAsLong() == 1 ? OptionalLong.of(newToken(s)) : OptionalLong.empty();
    }

    @Override
    String tokenInsert() {
        return sql("INSERT INTO {table}_token () VALUES ()");
    }

    /** Reads the token {@link #tokenInsert()} drew. */
    @Override
    String selectTokenAndNow() {
        return "SELECT LAST_INSERT_ID(), TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))";
    }

    @Override
    String newestToken() {
        return sql("SELECT MAX(id) FROM {table}_token");
    }

    @Override
    String purgeTokensBelow(int batch) {
        return sql("DELETE FROM {table}_token WHERE id < ? LIMIT " + batch);
    }

    /** {@code innodb_lock_wait_timeout} of the session, in whole seconds, at least 1. */
    @Override
    LockTableSql.SessionWait sessionWait(Duration maxBlock) {
        return new LockTableSql.SessionWait("SELECT @@SESSION.innodb_lock_wait_timeout",
                "SET SESSION innodb_lock_wait_timeout = {}", String.valueOf(Math.max(1, (waitMillis(maxBlock) + 999) / 1000)), false);
    }

    /** Locks the row, then draws the token: an insert into the token table, in the same transaction. */
    @Override
    OptionalLong lockRow(SqlSession s, String name, Duration maxBlock, boolean callerTx) throws SQLException {
        if (callerTx) {
            return lockRowInCallerTransaction(s, name, maxBlock);
        }
        if (waitMillis(maxBlock) <= 0) {
            try {
                return s.queryLong(lockRowNoWait(), name).isPresent() ? OptionalLong.of(newToken(s)) : OptionalLong.empty();
            } catch (SQLException e) {
                if (lockUnavailable(e)) {
                    return null;
                }
                throw e;
            }
        }
        Boolean locked = bounded(s, maxBlock, false, () -> s.queryLong(lockRow(), name).isPresent());
        if (locked == null) {
            return null;
        }
        return locked ? OptionalLong.of(newToken(s)) : OptionalLong.empty();
    }

    /** @return the AUTO_INCREMENT id of a token row inserted in the connection's transaction */
    @Override
    long newToken(SqlSession s) throws SQLException {
        return s.lastInsertId(tokenInsert(), "SELECT LAST_INSERT_ID()").getAsLong();
    }

    @Override
    <T> T bounded(SqlSession s, Duration maxBlock, boolean callerTx, SqlCall<T> call) throws SQLException {
        return boundedBySession(s, maxBlock, callerTx, call);
    }
}
