package io.txlock.jdbc;

import java.math.BigDecimal;
import java.sql.SQLException;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * H2 2.x. Tokens come from {@code <table>_token_seq}; a tokened statement is read back through {@code FINAL TABLE}.
 * The row lock of {@code SELECT_FOR_UPDATE} is a {@code SELECT … FOR UPDATE WAIT} that draws the token in its select
 * list, which H2 computes after it locked the row. Other lock waits are bounded by the session's
 * {@code LOCK_TIMEOUT} ({@link #sessionWait}), set for the call and restored after it.
 */
final class H2Statements extends Statements {

    /** The longest single lock wait of a statement on H2, which cannot cancel one. */
    static final Duration CANCELLABLE_WAIT = Duration.ofMillis(200);

    /** {@link #lockRow(Duration)} for the usual wait, {@link #CANCELLABLE_WAIT}, rendered once. */
    private final String lockRowCancellable;

    H2Statements(String table) {
        super(table);
        this.lockRowCancellable = lockRow(CANCELLABLE_WAIT);
    }

    /** By vendor code. */
    @Override
    SqlError classify(SQLException e) {
        return switch (e.getErrorCode()) {
            case 50200, // LOCK_TIMEOUT_1, also NOWAIT
                    90131 -> SqlError.LOCK_UNAVAILABLE; // CONCURRENT_UPDATE_1
            case 40001 -> SqlError.DEADLOCK_ROLLED_BACK; // DEADLOCK_1: H2 rolls back the victim's transaction
            case 23505 -> SqlError.DUPLICATE_KEY; // DUPLICATE_KEY_1
            default -> SqlError.OTHER;
        };
    }

    @Override
    String selectState() {
        return sql("SELECT version, state, DATEDIFF(MILLISECOND, CURRENT_TIMESTAMP, expires_at) FROM {table} WHERE name = ?");
    }

    /**
     * Inserts nothing where the name has a committed row (numbered parameters, as the name is used twice), so that a
     * duplicate key, an error, only comes of a race with an insert of the same name.
     */
    @Override
    String insertHeld(Duration wait) {
        return sql("""
                SELECT version FROM FINAL TABLE (
                  INSERT INTO {table} (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
                  SELECT NEXT VALUE FOR {table}_token_seq, ?1, 'HELD', ?2, ?3, 1, CURRENT_TIMESTAMP,
                    DATEADD(MILLISECOND, CAST(?4 AS BIGINT), CURRENT_TIMESTAMP), CURRENT_TIMESTAMP
                  WHERE NOT EXISTS (SELECT 1 FROM {table} WHERE name = ?1))""");
    }

    @Override
    String takeOver(Duration wait) {
        return sql("""
                SELECT version FROM FINAL TABLE (
                  UPDATE {table} SET version = NEXT VALUE FOR {table}_token_seq, state = 'HELD', owner_host = ?, owner_id = ?,
                    hold_count = 1, acquired_at = CURRENT_TIMESTAMP,
                    expires_at = DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP), updated_at = CURRENT_TIMESTAMP
                  WHERE name = ? AND (state = 'FREE' OR expires_at < CURRENT_TIMESTAMP))""");
    }

    /**
     * H2 locks the row an {@code UPDATE} found before it evaluates the new values (and evaluates the condition again
     * on the row it locked if another transaction changed it), so {@code NEXT VALUE FOR} in {@code SET} is drawn
     * under the row lock.
     */
    @Override
    boolean takeOverDrawsTokenUnderRowLock() {
        return true;
    }

    @Override
    String insertFree(Duration wait) {
        return sql("""
                SELECT version FROM FINAL TABLE (
                  INSERT INTO {table} (version, name, state, hold_count, expires_at, updated_at)
                  SELECT NEXT VALUE FOR {table}_token_seq, ?1, 'FREE', 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP
                  WHERE NOT EXISTS (SELECT 1 FROM {table} WHERE name = ?1))""");
    }

    @Override
    String retoken() {
        return sql("""
                SELECT version FROM FINAL TABLE (
                  UPDATE {table} SET version = NEXT VALUE FOR {table}_token_seq WHERE name = ? AND version = ?)""");
    }

    @Override
    String renew() {
        return sql("""
                UPDATE {table} SET expires_at = DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP), updated_at = CURRENT_TIMESTAMP
                WHERE name = ? AND version = ? AND owner_id = ? AND state = 'HELD'""");
    }

    @Override
    String free() {
        return sql("""
                UPDATE {table} SET state = 'FREE', owner_host = NULL, owner_id = NULL, hold_count = 0,
                  expires_at = CURRENT_TIMESTAMP, updated_at = CURRENT_TIMESTAMP
                WHERE name = ? AND version = ? AND owner_id = ? AND state = 'HELD'""");
    }

    @Override
    String inspect() {
        return sql("""
                SELECT version, owner_host, owner_id, hold_count, acquired_at, expires_at FROM {table}
                WHERE name = ? AND state = 'HELD' AND (expires_at IS NULL OR expires_at >= CURRENT_TIMESTAMP)""");
    }

    @Override
    String adminHeld() {
        return sql("""
                SELECT name, version, owner_host, owner_id, hold_count, acquired_at, expires_at FROM {table}
                WHERE name LIKE ? ESCAPE '!' AND state = 'HELD' AND (expires_at IS NULL OR expires_at >= CURRENT_TIMESTAMP)
                ORDER BY name""");
    }

    @Override
    String inspectRow() {
        return sql("""
                SELECT name, state, version, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at FROM {table}
                WHERE name = ? AND state = 'HELD' AND (expires_at IS NULL OR expires_at >= CURRENT_TIMESTAMP)""");
    }

    /** Rows whose lease ran out, and FREE rows a minute ({@link #FREE_RETENTION}) after their release. */
    @Override
    String reapCandidates() {
        return sql("""
                SELECT name FROM {table}
                WHERE expires_at < CURRENT_TIMESTAMP
                  AND (state = 'HELD' OR expires_at < DATEADD(MILLISECOND, CAST(-60000 AS BIGINT), CURRENT_TIMESTAMP))
                ORDER BY expires_at LIMIT ? FOR UPDATE SKIP LOCKED""");
    }

    @Override
    String reapDelete() {
        return sql("""
                DELETE FROM {table} WHERE name = ? AND expires_at < CURRENT_TIMESTAMP
                  AND (state = 'HELD' OR expires_at < DATEADD(MILLISECOND, CAST(-60000 AS BIGINT), CURRENT_TIMESTAMP))""");
    }

    /** A duplicate is a duplicate-key error, which H2 reports without failing the transaction. */
    @Override
    String insertClaim(Duration wait) {
        return sql("""
                INSERT INTO {table} (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
                VALUES (0, ?, 'HELD', ?, ?, 1, CURRENT_TIMESTAMP, DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP),
                  CURRENT_TIMESTAMP)""");
    }

    @Override
    String selectTokenAndNow() {
        return sql("""
                SELECT NEXT VALUE FOR {table}_token_seq,
                  DATEDIFF(MICROSECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', CURRENT_TIMESTAMP)""");
    }

    /**
     * @param wait the longest wait, at most {@link #CANCELLABLE_WAIT}
     * @return locks the name's row, if there is one, waiting up to {@code wait}, and draws the token once it holds it;
     *     parameter: name
     */
    String lockRow(Duration wait) {
        long millis = waitMillis(wait);
        if (millis == CANCELLABLE_WAIT.toMillis() && lockRowCancellable != null) {
            return lockRowCancellable;
        }
        return sql("SELECT NEXT VALUE FOR {table}_token_seq FROM {table} WHERE name = ? FOR UPDATE")
                + (millis <= 0 ? " NOWAIT" : " WAIT " + BigDecimal.valueOf(millis, 3).toPlainString());
    }

    /** {@code LOCK_TIMEOUT} of the session; H2 reads 0 as its default (about two seconds), so "do not wait" is 1 ms. */
    @Override
    LockTableSql.SessionWait sessionWait(Duration maxBlock) {
        return new LockTableSql.SessionWait("SELECT LOCK_TIMEOUT()", "SET LOCK_TIMEOUT {}",
                String.valueOf(Math.max(1, waitMillis(maxBlock))), false);
    }

    /**
     * {@code FOR UPDATE WAIT}, bounded to the millisecond by the statement itself: no session setting to change. H2
     * cannot cancel a statement that waits for a lock, so a long wait is a series of waits of at most
     * {@link #CANCELLABLE_WAIT}, each a chance for a cancelled attempt (an interrupted caller, a closing manager) to
     * stop; the holder's release still wakes the waiting statement at once.
     */
    @Override
    OptionalLong lockRow(SqlSession s, String name, Duration maxBlock, boolean callerTx) throws SQLException {
        long deadline = System.nanoTime() + Math.min(maxBlock.toNanos(), MAX_SINGLE_WAIT.toNanos());
        while (true) {
            long millis = Math.min(CANCELLABLE_WAIT.toMillis(), Math.max(0, (deadline - System.nanoTime()) / 1_000_000));
            try {
                return s.queryLong(lockRow(Duration.ofMillis(millis)), name);
            } catch (SQLException e) {
                if (!lockUnavailable(e) || callerTx && abortsTransaction(e)) {
                    throw e;
                }
                if (millis <= 0 || deadline - System.nanoTime() <= 0) {
                    return null;
                }
            }
        }
    }

    /**
     * A commit, which writes nothing here: with sessions locking rows at once, H2 ends a transaction that only locked
     * a row faster by commit than by rollback (one thread: the same; eight: about a quarter less CPU per cycle).
     */
    @Override
    void endRowLock(SqlSession s) throws SQLException {
        s.commit();
    }

    @Override
    <T> T bounded(SqlSession s, Duration maxBlock, boolean callerTx, SqlCall<T> call) throws SQLException {
        return boundedBySession(s, maxBlock, callerTx, call);
    }
}
