package io.txlock.jdbc;

import io.txlock.spi.LockRequest;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.OptionalLong;
import java.util.Set;

/**
 * How MySQL and MariaDB, both InnoDB, run their statements, and the statements whose text the two share, written
 * once here; {@link MySqlStatements} and {@link MariaDbStatements} write only their own (tokens, lock waits). The clock is {@code UTC_TIMESTAMP(6)}, stored in DATETIME(6)
 * columns, so session time zones never matter. In the caller's transaction a row is locked with
 * {@code INSERT … ON DUPLICATE KEY UPDATE}, which locks the existing row exclusively: unlike
 * {@code SELECT … FOR UPDATE} on a missing row, it takes no gap lock, so concurrent first uses of a name cannot
 * deadlock.
 */
abstract class InnoDbStatements extends Statements {

    /** Vendor codes of a GET_LOCK that would close a cycle of sessions waiting for each other's user locks. */
    private static final Set<Integer> USER_LOCK_DEADLOCK = Set.of(
            1213, // ER_LOCK_DEADLOCK (MariaDB)
            3058); // ER_USER_LOCK_DEADLOCK (MySQL)

    InnoDbStatements(String table) {
        super(table);
    }

    /** By vendor code: the two MySQL drivers report the same failure with different SQLStates. */
    @Override
    SqlError classify(SQLException e) {
        return switch (e.getErrorCode()) {
            case 1205, // ER_LOCK_WAIT_TIMEOUT, also MariaDB's NOWAIT
                    1969, // MariaDB ER_STATEMENT_TIMEOUT (max_statement_time)
                    3572 -> SqlError.LOCK_UNAVAILABLE; // MySQL ER_LOCK_NOWAIT
            case 1213 -> SqlError.DEADLOCK_ROLLED_BACK; // ER_LOCK_DEADLOCK: InnoDB rolls back the victim's transaction
            case 1062 -> SqlError.DUPLICATE_KEY; // ER_DUP_ENTRY
            default -> "40001".equals(e.getSQLState()) ? SqlError.LOCK_UNAVAILABLE : SqlError.OTHER;
        };
    }

    /**
     * @param wait the longest lock wait of the statement
     * @return {@code text} rendered for the table, with {@code wait} written into it where the dialect bounds lock
     *     waits per statement
     */
    abstract String waiting(Duration wait, String text);

    @Override
    String selectState() {
        return sql("""
                SELECT version, state, TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at) DIV 1000
                FROM {table} WHERE name = ?""");
    }

    /** @return {@link #selectState()} as a locking read, which sees the latest committed row; parameter: name */
    String selectStateForUpdate() {
        return sql("""
                SELECT version, state, TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at) DIV 1000
                FROM {table} WHERE name = ? FOR UPDATE""");
    }

    @Override
    String renew() {
        return sql("""
                UPDATE {table} SET expires_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)), updated_at = UTC_TIMESTAMP(6)
                WHERE name = ? AND version = ? AND owner_id = ? AND state = 'HELD'""");
    }

    @Override
    String free() {
        return sql("""
                UPDATE {table} SET state = 'FREE', owner_host = NULL, owner_id = NULL, hold_count = 0,
                  expires_at = UTC_TIMESTAMP(6), updated_at = UTC_TIMESTAMP(6)
                WHERE name = ? AND version = ? AND owner_id = ? AND state = 'HELD'""");
    }

    @Override
    String inspect() {
        return sql("""
                SELECT version, owner_host, owner_id, hold_count, acquired_at, expires_at FROM {table}
                WHERE name = ? AND state = 'HELD' AND (expires_at IS NULL OR expires_at >= UTC_TIMESTAMP(6))""");
    }

    @Override
    String adminHeld() {
        return sql("""
                SELECT name, version, owner_host, owner_id, hold_count, acquired_at, expires_at FROM {table}
                WHERE name LIKE ? ESCAPE '!' AND state = 'HELD' AND (expires_at IS NULL OR expires_at >= UTC_TIMESTAMP(6))
                ORDER BY name""");
    }

    @Override
    String inspectRow() {
        return sql("""
                SELECT name, state, version, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at FROM {table}
                WHERE name = ? AND state = 'HELD' AND (expires_at IS NULL OR expires_at >= UTC_TIMESTAMP(6))""");
    }

    /** Rows whose lease ran out, and FREE rows a minute ({@link #FREE_RETENTION}) after their release. */
    @Override
    String reapCandidates() {
        return sql("""
                SELECT name FROM {table}
                WHERE expires_at < UTC_TIMESTAMP(6)
                  AND (state = 'HELD' OR expires_at < TIMESTAMPADD(MICROSECOND, -60000 * 1000, UTC_TIMESTAMP(6)))
                ORDER BY expires_at LIMIT ? FOR UPDATE SKIP LOCKED""");
    }

    @Override
    String reapDelete() {
        return sql("""
                DELETE FROM {table} WHERE name = ? AND expires_at < UTC_TIMESTAMP(6)
                  AND (state = 'HELD' OR expires_at < TIMESTAMPADD(MICROSECOND, -60000 * 1000, UTC_TIMESTAMP(6)))""");
    }

    @Override
    String advisoryNamespace() {
        return "SELECT DATABASE()";
    }

    @Override
    String advisoryUnlock() {
        return "SELECT RELEASE_LOCK(?)";
    }

    @Override
    String advisoryUnlockAll() {
        return "SELECT RELEASE_ALL_LOCKS()";
    }

    @Override
    String advisoryLocked() {
        return "SELECT IS_USED_LOCK(?)";
    }

    /**
     * {@code ON DUPLICATE KEY UPDATE} locks a committed duplicate's row exclusively and reports it without an
     * error (a plain {@code INSERT} or {@code INSERT IGNORE} takes a shared lock on it). The update must change
     * the row: then the affected-row count tells a duplicate (2) from a new claim (1), whatever the driver's
     * found-rows setting. {@code hold_count} thus counts the submissions that saw the claim, in committed
     * transactions.
     */
    @Override
    String insertClaim(Duration wait) {
        return waiting(wait, """
                INSERT INTO {table} (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
                VALUES (0, ?, 'HELD', ?, ?, 1, UTC_TIMESTAMP(6), TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)),
                  UTC_TIMESTAMP(6))
                ON DUPLICATE KEY UPDATE hold_count = hold_count + 1""");
    }

    /** @return creates the name's row FREE or, if it exists, locks it exclusively, without a gap lock; parameter: name */
    String ensureLockedRow(Duration wait) {
        return waiting(wait, """
                INSERT INTO {table} (version, name, state, hold_count, expires_at, updated_at)
                VALUES (0, ?, 'FREE', 0, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))
                ON DUPLICATE KEY UPDATE hold_count = hold_count""");
    }

    /** @return a new token, drawn in the connection's transaction */
    abstract long newToken(SqlSession s) throws SQLException;

    /**
     * In the caller's transaction: create the row if missing and lock it exclusively (no gap lock, so two
     * transactions cannot deadlock on a missing row), then read its current state with a locking read (a plain
     * read would see the transaction's old snapshot under REPEATABLE READ and never see the row freed).
     */
    @Override
    RowState readState(SqlSession s, LockRequest r) throws SQLException {
        if (!r.transactional()) {
            return super.readState(s, r);
        }
        s.update(ensureLockedRow(r.maxBlock()), r.name());
        return rowState(s.queryRow(selectStateForUpdate(), r.name()));
    }

    @Override
    boolean rowsCreatedInACallerTransactionCanDeadlock() {
        return true;
    }

    @Override
    boolean locksBeforeReading(boolean callerTx) {
        return callerTx;
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
     * In the caller's transaction the row is locked with the upsert of {@link #ensureLockedRow}, never with a locking
     * read, which would take a gap lock where the row is missing; then the token is drawn.
     *
     * @return the token, or null if the wait ran out
     */
    OptionalLong lockRowInCallerTransaction(SqlSession s, String name, Duration maxBlock) throws SQLException {
        Boolean locked = bounded(s, maxBlock, true, () -> s.update(ensureLockedRow(maxBlock), name) >= 0);
        return locked == null ? null : OptionalLong.of(newToken(s));
    }

    /** A user lock's name: the key text itself, or its SHA-256 where that is too long or has letters with case. */
    @Override
    Object advisoryKey(String keyText) {
        return AdvisoryKeys.userLockName(keyText);
    }

    /**
     * {@code GET_LOCK} answers 0 (or NULL) when its wait ran out: an error is a failure (a DBA's
     * {@code max_statement_time}, say), except a deadlock among user locks, which means "held".
     */
    @Override
    OptionalLong takeAdvisoryLock(SqlSession s, Object key, Duration maxBlock, boolean callerTx) throws SQLException {
        try {
            return super.takeAdvisoryLock(s, key, maxBlock, callerTx);
        } catch (SQLException e) {
            if (USER_LOCK_DEADLOCK.contains(e.getErrorCode())) {
                return OptionalLong.empty();
            }
            throw e;
        }
    }

    /** {@code GET_LOCK} belongs to a session, whatever its transactions do. */
    @Override
    boolean advisoryLocksEndWithTransaction() {
        return false;
    }

    // ---- the fair queue (FairQueue): a user lock per name, on MySQL and MariaDB alike

    /**
     * The name's queue lock: a user lock named by the SHA-256 of the bytes of {@code <database>.<table>:<name>}, NUL,
     * {@code queue} (bytes, so that names of any characters mix with the database's name; never an
     * {@link io.txlock.Strategy#ADVISORY} lock's name, as names hold no NUL). 64 hexadecimal digits: the longest
     * user lock name MySQL takes.
     *
     * @param name an SQL expression for the lock's name
     */
    static String queueKey(String name) {
        return "SHA2(CONCAT(CAST(DATABASE() AS BINARY), '.{table}:', CAST(" + name + " AS BINARY), CHAR(0), 'queue'), 256)";
    }

    /**
     * @param key an SQL expression for a {@link #queueKey}
     * @return the gate of an attempt outside the queue: true when nobody holds the queue's user lock, or this session
     */
    static String unqueued(String key) {
        return "IS_FREE_LOCK(" + key + ") = 1 OR IS_USED_LOCK(" + key + ") = CONNECTION_ID()";
    }

    /**
     * @param key an SQL expression for a {@link #queueKey}
     * @return {@code GET_LOCK} of that key, its wait bound after the key's parameters as {@link #advisoryWait}
     */
    abstract String getLock(String key);

    @Override
    String queueLock() {
        return rendered("queueLock", null,
                () -> sql("SELECT IF(" + getLock(queueKey("?")) + " = 1, '', NULL)"));
    }

    @Override
    Object queueWait(Duration wait) {
        return advisoryWait(wait);
    }

    @Override
    String queueUnlock() {
        return rendered("queueUnlock", null, () -> sql("SELECT RELEASE_LOCK(" + queueKey("?") + ")"));
    }

    @Override
    String selectStateUnqueued() {
        return rendered("selectStateUnqueued", null, () -> sql("""
                SELECT version, CASE WHEN txlock_queue.free THEN state ELSE 'HELD' END,
                  CASE WHEN txlock_queue.free THEN TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at) DIV 1000
                    ELSE GREATEST(0, TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at) DIV 1000) END
                FROM {table}, (SELECT %s AS free
                  FROM (SELECT %s AS k) AS txlock_key) AS txlock_queue
                WHERE name = ?""".formatted(unqueued("txlock_key.k"), queueKey("?"))));
    }

    @Override
    Instant instant(ResultSet rs, int column) throws SQLException {
        LocalDateTime t = rs.getObject(column, LocalDateTime.class);
        return t == null ? null : t.toInstant(ZoneOffset.UTC);
    }
}
