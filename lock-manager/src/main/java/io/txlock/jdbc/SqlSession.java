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
     * Runs a statement that sets the connection's last insert id (MySQL and MariaDB: a row inserted with an
     * {@code AUTO_INCREMENT} key, or {@code LAST_INSERT_ID(expr)} in the rows it writes), and reads that id from the
     * database's answer to the statement, which carries it.
     *
     * @param sql the statement
     * @param selectId a query for the id ({@code SELECT LAST_INSERT_ID()}), run after {@code sql} in the same
     *     transaction, for a session that cannot read it from the answer
     * @param params the statement's parameters
     * @return the id, or empty if the statement changed no row
     * @throws SQLException if it failed
     */
    OptionalLong lastInsertId(String sql, String selectId, Object... params) throws SQLException;

    /**
     * @return whether {@link #queryLongOfLast} can run several statements in one call: a JDBC connection can, where
     *     its driver takes them (PostgreSQL's sends them in one round trip; only that dialect asks); native queries
     *     cannot
     */
    default boolean runsStatementLists() {
        return false;
    }

    /**
     * Runs statements separated by {@code ;} in one call, where {@link #runsStatementLists()}; outside a transaction
     * PostgreSQL runs them in one implicit transaction.
     *
     * @param statements the statements
     * @param params the parameters of all of them, in order
     * @return the first column of the first row of the last statement that returns rows, or empty if it returned none
     * @throws SQLException if one failed
     */
    default OptionalLong queryLongOfLast(String statements, Object... params) throws SQLException {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " runs one statement per call");
    }

    /**
     * Runs statements separated by {@code ;} (or one compound statement) in one call, where
     * {@link #runsStatementLists()}.
     *
     * @param statements the statements
     * @param params the parameters of all of them, in order
     * @return the first row of each result set, in order (null for a result set without rows)
     * @throws SQLException if one failed
     */
    default java.util.List<Object[]> queryFirstRows(String statements, Object... params) throws SQLException {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " runs one statement per call");
    }

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
     * @param sql a statement that returns rows
     * @param params its parameters
     * @return the first column of its first row as a number, or empty if it returned no row or SQL NULL
     * @throws SQLException if it failed
     */
    default OptionalLong queryNullableLong(String sql, Object... params) throws SQLException {
        Object[] row = queryRow(sql, params);
        return row == null || row[0] == null ? OptionalLong.empty() : OptionalLong.of(((Number) row[0]).longValue());
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
