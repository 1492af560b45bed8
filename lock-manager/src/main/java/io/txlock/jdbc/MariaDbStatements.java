package io.txlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/**
 * MariaDB: MySQL's SQL, with lock waits bounded per statement and to the millisecond by
 * {@code SET STATEMENT max_statement_time=… FOR …} ({@code innodb_lock_wait_timeout=0} for "do not wait"),
 * so no session setting is ever changed.
 */
final class MariaDbStatements extends MySqlStatements {

    MariaDbStatements(String table) {
        super(table);
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

    @Override
    <T> T bounded(Connection c, Duration maxBlock, boolean callerTx, SqlCall<T> call) throws SQLException {
        try {
            return call.run();
        } catch (SQLException e) {
            if (lockUnavailable(e) && !(callerTx && abortsTransaction(e))) {
                return null;
            }
            throw e;
        }
    }
}
