package io.txlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
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

    private static final Set<String> LOCK_UNAVAILABLE = Set.of(
            "55P03", // lock_not_available: lock_timeout, NOWAIT
            "40P01", // deadlock_detected
            "40001"); // serialization_failure

    PostgresStatements(String table) {
        super(table);
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

    @Override
    String upsertLock() {
        return "INSERT INTO " + table
                + " (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)"
                + " SELECT " + nextToken() + ", ?, 'HELD', ?, ?, 1, clock_timestamp(), NULL, clock_timestamp()" + WAIT
                + " ON CONFLICT (name) DO UPDATE SET version = EXCLUDED.version, state = 'HELD',"
                + " owner_host = EXCLUDED.owner_host, owner_id = EXCLUDED.owner_id, hold_count = 1,"
                + " acquired_at = EXCLUDED.acquired_at, expires_at = NULL, updated_at = EXCLUDED.updated_at";
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
        Savepoint savepoint = c.setSavepoint();
        try {
            String previous = setLockTimeout(c, Math.max(1, waitMillis(maxBlock)) + "ms");
            T result = call.run();
            setLockTimeout(c, previous);
            c.releaseSavepoint(savepoint);
            return result;
        } catch (SQLException e) {
            c.rollback(savepoint);
            c.releaseSavepoint(savepoint);
            if (lockUnavailable(e)) {
                return null;
            }
            throw e;
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
