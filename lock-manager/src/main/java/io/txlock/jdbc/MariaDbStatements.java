package io.txlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * MariaDB: MySQL's SQL, with two differences. Tokens come from the sequence {@code <table>_token_seq}, not from a
 * token table: a LEASE row lock draws its token in the select list of its locking read, and drawing one writes
 * nothing (a token row insert halves what the server can do, measured on MariaDB 10.11). Lock waits are bounded per
 * statement and to the millisecond by {@code SET STATEMENT max_statement_time=… FOR …}
 * ({@code innodb_lock_wait_timeout=0} for "do not wait"), so no session setting is ever changed.
 */
final class MariaDbStatements extends MySqlStatements {

    private final String sequence;
    /** MariaDB computes the select list of a locking read after it locked the row. */
    private final String lockRowDrawingToken;

    MariaDbStatements(String table) {
        super(table);
        this.sequence = table + "_token_seq";
        this.lockRowDrawingToken = "SELECT NEXTVAL(" + sequence + ") FROM " + table + " WHERE name = ? FOR UPDATE" + WAIT;
    }

    /** Outside the caller's transaction: one locking read that draws the token (in the caller's, MySQL's upsert). */
    @Override
    OptionalLong lockRow(Connection c, String name, Duration maxBlock, boolean callerTx) throws SQLException {
        if (callerTx) {
            return super.lockRow(c, name, maxBlock, true);
        }
        return bounded(c, maxBlock, false, () -> queryLong(c, render(lockRowDrawingToken, maxBlock, false), name));
    }

    @Override
    long newToken(Connection c) throws SQLException {
        return queryLong(c, "SELECT NEXTVAL(" + sequence + ")").getAsLong();
    }

    @Override
    String selectTokenAndNow() {
        return "SELECT NEXTVAL(" + sequence + "), " + epochMicros();
    }

    @Override
    String tokenInsert() {
        return null;
    }

    @Override
    String newestToken() {
        return null;
    }

    @Override
    String render(String template, Duration maxBlock, boolean callerTx) {
        String sql = template.replace(WAIT, "");
        long millis = waitMillis(maxBlock);
        if (millis <= 0) {
            return "SET STATEMENT innodb_lock_wait_timeout = 0 FOR " + sql;
        }
        return "SET STATEMENT max_statement_time = " + (millis / 1000) + "." + String.format("%03d", millis % 1000)
                + " FOR " + sql;
    }

    /**
     * For a whole session: {@code max_statement_time}, to the millisecond; "do not wait" is
     * {@code innodb_lock_wait_timeout = 0}, as {@code max_statement_time = 0} would mean "no limit".
     */
    @Override
    LockTableSql.SessionWait sessionWait(Duration maxBlock) {
        long millis = waitMillis(maxBlock);
        if (millis <= 0) {
            return new LockTableSql.SessionWait("SELECT @@SESSION.innodb_lock_wait_timeout",
                    "SET SESSION innodb_lock_wait_timeout = {}", "0", false);
        }
        return new LockTableSql.SessionWait("SELECT @@SESSION.max_statement_time", "SET SESSION max_statement_time = {}",
                (millis / 1000) + "." + String.format("%03d", millis % 1000), false);
    }

    @Override
    <T> T bounded(Connection c, Duration maxBlock, boolean callerTx, SqlCall<T> call) throws SQLException {
        try {
            return call.run();
        } catch (SQLException e) {
            // 1969, max_statement_time, is this dialect's wait bound only where render set one: a zero wait sets none
            if (lockUnavailable(e) && !(callerTx && abortsTransaction(e)) && (e.getErrorCode() != 1969 || waitMillis(maxBlock) > 0)) {
                return null;
            }
            throw e;
        }
    }
}
