package io.txlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.Set;

/**
 * H2 2.x. Tokens come from {@code <table>_token_seq}; the new token is read back through
 * {@code FINAL TABLE}. The row lock of {@code SELECT_FOR_UPDATE} is a {@code SELECT … FOR UPDATE WAIT} that draws
 * the token in its select list. Other lock waits are bounded by the session's {@code LOCK_TIMEOUT}
 * ({@link #sessionWait}), set for the call and restored after it.
 */
final class H2Statements extends Statements {

    private static final Set<Integer> LOCK_UNAVAILABLE = Set.of(
            50200, // LOCK_TIMEOUT_1, also NOWAIT
            40001, // DEADLOCK_1
            90131); // CONCURRENT_UPDATE_1

    /** H2 computes the select list of a locking read after it locked the row. */
    private final String lockRow;

    H2Statements(String table) {
        super(table);
        this.lockRow = "SELECT " + nextToken() + " FROM " + table + " WHERE name = ? FOR UPDATE";
    }

    @Override
    String now() {
        return "CURRENT_TIMESTAMP";
    }

    @Override
    String nowPlusMillis() {
        return "DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP)";
    }

    @Override
    String millisUntil(String column) {
        return "DATEDIFF(MILLISECOND, CURRENT_TIMESTAMP, " + column + ")";
    }

    @Override
    String nextToken() {
        return "NEXT VALUE FOR " + table + "_token_seq";
    }

    @Override
    String epochMicros() {
        return "DATEDIFF(MICROSECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', CURRENT_TIMESTAMP)";
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
    OptionalLong lockRow(Connection c, String name, Duration maxBlock, boolean callerTx) throws SQLException {
        long deadline = System.nanoTime() + Math.min(maxBlock.toNanos(), MAX_SINGLE_WAIT.toNanos());
        while (true) {
            long millis = Math.min(CANCELLABLE_WAIT.toMillis(), Math.max(0, (deadline - System.nanoTime()) / 1_000_000));
            String wait = millis <= 0 ? " NOWAIT" : " WAIT " + java.math.BigDecimal.valueOf(millis, 3).toPlainString();
            try {
                return queryLong(c, lockRow + wait, name);
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

    /** The longest single lock wait of a statement on H2, which cannot cancel one. */
    static final Duration CANCELLABLE_WAIT = Duration.ofMillis(200);

    /** A commit: H2 drops the session's cache of parsed statements at every rollback, and committing nothing writes nothing. */
    @Override
    void endRowLock(Connection c) throws SQLException {
        c.commit();
    }

    @Override
    OptionalLong tokened(Connection c, String sql, Object... params) throws SQLException {
        return queryLong(c, "SELECT version FROM FINAL TABLE (" + sql + ")", params);
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
        return LOCK_UNAVAILABLE.contains(e.getErrorCode());
    }

    @Override
    boolean duplicateKey(SQLException e) {
        return e.getErrorCode() == 23505;
    }

    @Override
    boolean abortsTransaction(SQLException e) {
        return e.getErrorCode() == 40001;
    }
}
