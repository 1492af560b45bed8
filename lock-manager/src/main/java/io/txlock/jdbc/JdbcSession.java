package io.txlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** A {@link SqlSession} on a JDBC connection. */
record JdbcSession(Connection connection) implements SqlSession {

    @Override
    public int update(String sql, Object... params) throws SQLException {
        return Statements.update(connection, sql, params);
    }

    /**
     * Runs the statement with {@code execute()}, not {@code executeQuery()}: MySQL Connector/J refuses the latter for a
     * query that starts with MariaDB's {@code SET STATEMENT … FOR}, which it takes for a statement without results.
     */
    @Override
    public Object[] queryRow(String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = Statements.prepare(connection, sql, params)) {
            if (!ps.execute()) {
                throw new SQLException("expected a result set from " + sql);
            }
            try (ResultSet rs = ps.getResultSet()) {
                if (!rs.next()) {
                    return null;
                }
                Object[] row = new Object[rs.getMetaData().getColumnCount()];
                for (int i = 0; i < row.length; i++) {
                    row[i] = rs.getObject(i + 1);
                }
                return row;
            }
        }
    }

    @Override
    public java.util.OptionalLong queryLong(String sql, Object... params) throws SQLException {
        return Statements.queryLong(connection, sql, params);
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

    @Override
    public long insertedKey(String insert, String selectKey) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(insert, Statement.RETURN_GENERATED_KEYS)) {
            CancellableStatements.track(ps);
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                keys.next();
                return keys.getLong(1);
            }
        }
    }
}
