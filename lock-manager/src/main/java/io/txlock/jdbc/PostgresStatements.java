package io.txlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.Set;

/**
 * PostgreSQL. The clock is {@code clock_timestamp()} (not {@code now()}, which stands still for a whole
 * transaction); tokens come from {@code <table>_token_seq}. Lock waits are bounded by {@code lock_timeout}:
 * outside the caller's transaction it is set by the waiting statement itself, from a one-row
 * {@code FROM (SELECT set_config('lock_timeout', …, true))}, at no extra round trip; inside the caller's
 * transaction, where any error would abort it, the statement runs in a savepoint with the setting saved and
 * restored around it.
 */
final class PostgresStatements extends Statements {

    /**
     * Savepoints are SQL statements, not {@code Connection.setSavepoint()}: a Jakarta EE server refuses
     * {@code Connection.rollback(Savepoint)} on a connection enlisted in its transaction (WildFly: IJ031021).
     */
    private static final String SAVEPOINT = "txlock_attempt";

    private static final Set<String> LOCK_UNAVAILABLE = Set.of(
            "55P03", // lock_not_available: lock_timeout, NOWAIT
            "40P01", // deadlock_detected
            "40001"); // serialization_failure

    private final String lockRowWaiting;
    private final String lockRowIfFree;
    private final String lockOrCreateRow;

    PostgresStatements(String table) {
        super(table);
        String token = "SELECT " + nextToken() + " FROM (SELECT 1 FROM " + table + " AS txlock_row";
        this.lockOrCreateRow = "INSERT INTO " + table + " AS txlock_row (version, name, state, hold_count, expires_at, updated_at)"
                + " VALUES (0, ?, 'FREE', 0, clock_timestamp(), clock_timestamp()) ON CONFLICT (name)"
                + " DO UPDATE SET hold_count = txlock_row.hold_count RETURNING " + nextToken();
        this.lockRowIfFree = token + " WHERE name = ? FOR UPDATE SKIP LOCKED) AS txlock_locked";
        this.lockRowWaiting = token + ", (SELECT set_config('lock_timeout', ?, true)) AS txlock_wait"
                + " WHERE txlock_row.name = ? FOR UPDATE OF txlock_row) AS txlock_locked";
    }

    @Override
    String now() {
        return "clock_timestamp()";
    }

    @Override
    String nowPlusMillis() {
        return "(clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond')";
    }

    @Override
    String millisUntil(String column) {
        return "CAST(EXTRACT(EPOCH FROM (" + column + " - clock_timestamp())) * 1000 AS BIGINT)";
    }

    @Override
    String nextToken() {
        return "nextval('" + table + "_token_seq')";
    }

    @Override
    String epochMicros() {
        return "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)";
    }

    /** {@code lock_timeout}, set for the rest of the transaction ({@code set_config(…, true)}): a rollback undoes it. */
    @Override
    LockTableSql.SessionWait sessionWait(Duration maxBlock) {
        return new LockTableSql.SessionWait("SELECT current_setting('lock_timeout')",
                "SELECT set_config('lock_timeout', '{}', true)", Math.max(1, waitMillis(maxBlock)) + "ms", true);
    }

    @Override
    String onConflictDoNothing() {
        return " ON CONFLICT (name) DO NOTHING";
    }

    /** A duplicate inserts nothing (0 rows), after waiting for an uncommitted claim's transaction to end. */
    @Override
    String insertClaim(String insert) {
        return insert + " ON CONFLICT (name) DO NOTHING";
    }

    /**
     * Outside the caller's transaction the statement bounds its own wait ({@code lock_timeout} from a bound
     * parameter, so the server reuses its prepared plan) and a timeout simply ends the attempt. Inside it, where an
     * error would abort the caller's transaction, a row that no one holds is taken with {@code SKIP LOCKED}, which
     * never fails; a held or missing row costs a savepoint and a bounded wait ({@link #bounded}) for one upsert that
     * creates the row or locks it, and draws the token in {@code RETURNING}, once it holds the row (a first use of
     * a name, an idempotency key say, thus takes one statement in the savepoint, not a lock, an insert and a lock).
     * Elsewhere the token is drawn above the {@code FOR UPDATE} subquery, once its row is locked.
     */
    @Override
    OptionalLong lockRow(Connection c, String name, Duration maxBlock, boolean callerTx) throws SQLException {
        if (callerTx) {
            OptionalLong free = queryLong(c, lockRowIfFree, name);
            return free.isPresent() ? free : bounded(c, maxBlock, true, () -> queryLong(c, lockOrCreateRow, name));
        }
        try {
            return queryLong(c, lockRowWaiting, Math.max(1, waitMillis(maxBlock)) + "ms", name);
        } catch (SQLException e) {
            if (lockUnavailable(e)) {
                return null;
            }
            throw e;
        }
    }

    @Override
    String render(String template, Duration maxBlock, boolean callerTx) {
        return template.replace(WAIT, callerTx ? ""
                : " FROM (SELECT set_config('lock_timeout', '" + Math.max(1, waitMillis(maxBlock)) + "ms', true)) AS txlock_wait");
    }

    @Override
    OptionalLong tokened(Connection c, String sql, Object... params) throws SQLException {
        return queryLong(c, sql + " RETURNING version", params);
    }

    @Override
    <T> T bounded(Connection c, Duration maxBlock, boolean callerTx, SqlCall<T> call) throws SQLException {
        if (!callerTx) {
            try {
                return call.run();
            } catch (SQLException e) {
                if (lockUnavailable(e)) {
                    return null;
                }
                throw e;
            }
        }
        savepoint(c);
        try {
            String previous = setLockTimeout(c, Math.max(1, waitMillis(maxBlock)) + "ms");
            T result = call.run();
            setLockTimeout(c, previous);
            releaseSavepoint(c);
            return result;
        } catch (SQLException e) {
            rollbackToSavepoint(c);
            if (lockUnavailable(e)) {
                return null;
            }
            throw e;
        }
    }

    static void savepoint(Connection c) throws SQLException {
        execute(c, "SAVEPOINT " + SAVEPOINT);
    }

    static void releaseSavepoint(Connection c) throws SQLException {
        execute(c, "RELEASE SAVEPOINT " + SAVEPOINT);
    }

    /** Undoes everything since {@link #savepoint}, settings and row locks included, and ends the savepoint. */
    static void rollbackToSavepoint(Connection c) throws SQLException {
        execute(c, "ROLLBACK TO SAVEPOINT " + SAVEPOINT);
        releaseSavepoint(c);
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** Sets lock_timeout for the rest of the transaction; returns the previous setting. */
    private static String setLockTimeout(Connection c, String timeout) throws SQLException {
        try (PreparedStatement ps = prepare(c, "SELECT current_setting('lock_timeout'), set_config('lock_timeout', ?, true)", timeout);
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Override
    boolean lockUnavailable(SQLException e) {
        return LOCK_UNAVAILABLE.contains(e.getSQLState());
    }

    @Override
    boolean duplicateKey(SQLException e) {
        return "23505".equals(e.getSQLState());
    }
}
