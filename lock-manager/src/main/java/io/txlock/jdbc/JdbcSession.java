package io.txlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalLong;

/**
 * A {@link SqlSession} on a JDBC connection.
 *
 * @param reused the statements kept on the connection ({@link ReusedStatements}), or null to prepare every
 *     statement anew and close it after it ran
 */
record JdbcSession(Connection connection, ReusedStatements reused) implements SqlSession {

    JdbcSession(Connection connection) {
        this(connection, null);
    }

    /**
     * @param c a connection the provider borrowed and whose transaction it ends itself, never a caller's
     * @return a session that keeps its prepared statements on the connection for the next borrower
     *     ({@link ReusedStatements}); one that prepares every statement anew where the connection cannot be unwrapped
     */
    static JdbcSession reusing(Connection c) {
        try {
            return new JdbcSession(c, ReusedStatements.of(c));
        } catch (SQLException | RuntimeException e) {
            return new JdbcSession(c, null);
        }
    }

    /**
     * @param c a connection the provider borrowed for a short transaction of its own, never a caller's
     * @return a session that keeps its prepared statements on the connection ({@link #reusing}) where the connection is
     *     in auto-commit mode, as each statement then commits itself and no uncommitted work can go back to the pool
     *     unseen by its handle; else one that prepares every statement through the pool's handle
     */
    static JdbcSession autoCommitting(Connection c) throws SQLException {
        return c.getAutoCommit() ? reusing(c) : new JdbcSession(c);
    }

    private PreparedStatement prepare(String sql, Object... params) throws SQLException {
        return reused == null ? Statements.prepare(connection, sql, params) : reusedWhileOpen().prepare(sql, params);
    }

    /**
     * A statement kept on the underlying connection runs only while this session's handle is open: once the handle was
     * given back (a stale grant's release, say), the pool may have lent the connection to someone else.
     */
    private ReusedStatements reusedWhileOpen() throws SQLException {
        if (connection.isClosed()) {
            throw new SQLException("the connection was given back to the pool", "08003");
        }
        return reused;
    }

    private void done(PreparedStatement ps) throws SQLException {
        if (reused == null) {
            ps.close();
        }
    }

    @Override
    public int update(String sql, Object... params) throws SQLException {
        PreparedStatement ps = prepare(sql, params);
        try {
            return ps.executeUpdate();
        } finally {
            done(ps);
        }
    }

    @Override
    public Object[] queryRow(String sql, Object... params) throws SQLException {
        return query(sql, params, rs -> rs.next() ? firstRow(rs) : null);
    }

    @Override
    public OptionalLong queryLong(String sql, Object... params) throws SQLException {
        return query(sql, params, rs -> rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty());
    }

    @Override
    public OptionalLong queryNullableLong(String sql, Object... params) throws SQLException {
        return query(sql, params, rs -> {
            if (!rs.next()) {
                return OptionalLong.empty();
            }
            long value = rs.getLong(1);
            return rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(value);
        });
    }

    /**
     * Runs a query with {@code execute()}, not {@code executeQuery()}: MySQL Connector/J refuses the latter for a
     * query that starts with MariaDB's {@code SET STATEMENT … FOR}, which it takes for a statement without results.
     *
     * @return what {@code reader} reads from the query's result set
     */
    private <T> T query(String sql, Object[] params, ResultReader<T> reader) throws SQLException {
        PreparedStatement ps = prepare(sql, params);
        try {
            if (!ps.execute()) {
                throw new SQLException("expected a result set from " + sql);
            }
            try (ResultSet rs = ps.getResultSet()) {
                return reader.read(rs);
            }
        } finally {
            done(ps);
        }
    }

    /** Reads what a query returns from its result set. */
    @FunctionalInterface
    private interface ResultReader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    @Override
    public Object[] control(String sql) throws SQLException {
        try (Statement s = connection.createStatement()) {
            if (!s.execute(sql)) {
                return null;
            }
            try (ResultSet rs = s.getResultSet()) {
                return rs.next() ? new Object[] {rs.getObject(1)} : null;
            }
        }
    }

    @Override
    public void commit() throws SQLException {
        connection.commit();
    }

    @Override
    public void rollback() throws SQLException {
        connection.rollback();
    }

    @Override
    public boolean alive(java.time.Duration lease) {
        return JdbcAccess.alive(connection, lease);
    }

    /** Reads the id from the statement's generated keys, which MySQL's and MariaDB's drivers take from the answer. */
    @Override
    public OptionalLong lastInsertId(String sql, String selectId, Object... params) throws SQLException {
        PreparedStatement ps;
        if (reused == null) {
            ps = connection.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS);
            try {
                CancellableStatements.track(ps);
                Statements.bind(ps, 1, params);
            } catch (SQLException | RuntimeException e) {
                ps.close();
                throw e;
            }
        } else {
            ps = reusedWhileOpen().prepareReturningKeys(sql, params);
        }
        try {
            if (ps.executeUpdate() == 0) {
                return OptionalLong.empty();
            }
            try (ResultSet keys = ps.getGeneratedKeys()) {
                if (!keys.next()) {
                    throw new SQLException("the database reported no last insert id for " + sql);
                }
                return OptionalLong.of(keys.getLong(1));
            }
        } finally {
            done(ps);
        }
    }

    @Override
    public boolean runsStatementLists() {
        return true;
    }

    @Override
    public OptionalLong queryLongOfLast(String statements, Object... params) throws SQLException {
        PreparedStatement ps = prepare(statements, params);
        try {
            OptionalLong last = OptionalLong.empty();
            boolean rows = ps.execute();
            while (rows || ps.getUpdateCount() != -1) {
                if (rows) {
                    try (ResultSet rs = ps.getResultSet()) {
                        last = rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
                    }
                }
                rows = ps.getMoreResults();
            }
            return last;
        } finally {
            done(ps);
        }
    }

    @Override
    public java.util.List<Object[]> queryFirstRows(String statements, Object... params) throws SQLException {
        java.util.List<Object[]> rows = new java.util.ArrayList<>(2);
        PreparedStatement ps = prepare(statements, params);
        try {
            boolean results = ps.execute();
            while (results || ps.getUpdateCount() != -1) {
                if (results) {
                    try (ResultSet rs = ps.getResultSet()) {
                        rows.add(rs.next() ? firstRow(rs) : null);
                    }
                }
                results = ps.getMoreResults();
            }
            return rows;
        } finally {
            done(ps);
        }
    }

    /**
     * Runs a statement that lets go of what an attempt took (a queue lock): it runs even once the attempt was
     * cancelled, as no cancel tracks it ({@link CancellableStatements}).
     *
     * @param sql the statement
     * @param params its parameters
     * @throws SQLException if it failed
     */
    void executeEvenIfCancelled(String sql, Object... params) throws SQLException {
        if (reused == null) {
            try (PreparedStatement ps = connection.prepareStatement(sql)) {
                Statements.bind(ps, 1, params);
                ps.execute();
            }
        } else {
            PreparedStatement ps = reusedWhileOpen().prepareUntracked(sql, params);
            if (ps.execute()) {
                ps.getResultSet().close();
            }
        }
    }

    private static Object[] firstRow(ResultSet rs) throws SQLException {
        Object[] row = new Object[rs.getMetaData().getColumnCount()];
        for (int i = 0; i < row.length; i++) {
            row[i] = rs.getObject(i + 1);
        }
        return row;
    }
}
