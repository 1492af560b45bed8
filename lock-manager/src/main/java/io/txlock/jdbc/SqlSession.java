package io.txlock.jdbc;

import java.sql.SQLException;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * Where the lock table's statements run: a JDBC connection ({@link #of(java.sql.Connection)}), or the JPA
 * provider's entity manager, through native queries. The dialects ({@link Statements}) and the row-lease
 * strategies ({@link RowLease}, {@link RowLock}) are written once over it. Parameters are {@code Long}, {@code Integer} or
 * {@code String}; a failed statement throws the {@link SQLException} the driver reported.
 *
 * <p><b>Internal to txlock.</b> Not an API: it may change in any release.
 */
public interface SqlSession {

    /**
     * @param sql a statement that returns no rows
     * @param params its parameters
     * @return the number of rows it changed
     * @throws SQLException if it failed
     */
    int update(String sql, Object... params) throws SQLException;

    /**
     * @param sql a statement that returns rows (a query, or an insert or update returning the rows it wrote)
     * @param params its parameters
     * @return the columns of its first row, or null if it returned none
     * @throws SQLException if it failed
     */
    Object[] queryRow(String sql, Object... params) throws SQLException;

    /**
     * Runs a statement without parameters that never waits for a row lock (a setting, a savepoint), and that runs
     * even once the attempt it serves was cancelled, so that settings are always set back.
     *
     * @param sql the statement
     * @return the columns of its first row, or null if it returned no row or no rows at all
     * @throws SQLException if it failed
     */
    Object[] control(String sql) throws SQLException;

    /**
     * Inserts one row into a table with a generated key.
     *
     * @param insert the insert, without parameters
     * @param selectKey a query for the key the insert generated, for a session that cannot read generated keys
     * @return the generated key
     * @throws SQLException if it failed
     */
    long insertedKey(String insert, String selectKey) throws SQLException;

    /**
     * Ends the session's transaction, keeping what it wrote; the next statement begins a new one. Only for a
     * transaction of txlock's own, never the caller's.
     *
     * @throws SQLException if it failed
     */
    void commit() throws SQLException;

    /**
     * Ends the session's transaction, undoing what it wrote and freeing its row locks; the next statement begins a
     * new one. Only for a transaction of txlock's own, never the caller's.
     *
     * @throws SQLException if it failed
     */
    void rollback() throws SQLException;

    /**
     * @param lease the lease of a lock the session holds: the check waits at most a third of it (1 to 30 s)
     * @return whether the session's connection still answers (a lock of its transaction lives with it)
     */
    boolean alive(Duration lease);

    /**
     * @param sql a statement that returns rows
     * @param params its parameters
     * @return the first column of its first row as a number (0 if it is null), or empty if it returned no row
     * @throws SQLException if it failed
     */
    default OptionalLong queryLong(String sql, Object... params) throws SQLException {
        Object[] row = queryRow(sql, params);
        if (row == null) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(row[0] == null ? 0 : ((Number) row[0]).longValue());
    }

    /**
     * @param c a connection
     * @return a session running on it; its statements are cancellable while a lock attempt waits
     *     ({@link CancellableStatements})
     */
    static SqlSession of(java.sql.Connection c) {
        return new JdbcSession(c);
    }
}
