package io.txlock.chaos;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The protected resource: a row per run in a PostgreSQL table that refuses a write whose fencing token is not above
 * the last accepted one, and a log of the accepted writes in commit order. One statement, in auto-commit, does
 * the check, the write and the log entry, so that a holder paused or killed halfway leaves no lock behind.
 */
final class Resource implements AutoCloseable {

    /** An accepted write, as the resource logged it. */
    record Write(long id, long token, String holder, long value) {
    }

    private static final String WRITE = """
            WITH accepted AS (
              UPDATE chaos_resource SET token = ?, value = value + 1 WHERE name = ? AND token < ? RETURNING value)
            INSERT INTO chaos_write (name, token, holder, value) SELECT ?, ?, ?, value FROM accepted""";

    private final String url;
    private Connection connection;

    Resource(String url) {
        this.url = url;
    }

    /** Creates the tables on the resource database. */
    static void createTables(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS chaos_resource (name text PRIMARY KEY, token bigint NOT NULL, value bigint NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS chaos_write (id bigserial PRIMARY KEY, name text NOT NULL,"
                    + " token bigint NOT NULL, holder text NOT NULL, value bigint NOT NULL)");
        }
    }

    /** Adds the resource of a run, with no write yet. */
    void prepare(String name) throws SQLException {
        try (PreparedStatement s = connection().prepareStatement("INSERT INTO chaos_resource VALUES (?, ?, 0)")) {
            s.setString(1, name);
            s.setLong(2, Long.MIN_VALUE);
            s.executeUpdate();
        }
    }

    /**
     * @return whether the write was accepted: false if a write with this token or a higher one was accepted before
     * @throws SQLException if the resource database failed (the connection is dropped and made again next time)
     */
    boolean write(String name, long token, String holder) throws SQLException {
        try (PreparedStatement s = connection().prepareStatement(WRITE)) {
            s.setLong(1, token);
            s.setString(2, name);
            s.setLong(3, token);
            s.setString(4, name);
            s.setLong(5, token);
            s.setString(6, holder);
            return s.executeUpdate() == 1;
        } catch (SQLException e) {
            close();
            throw e;
        }
    }

    /** @return the accepted writes of a run, in the order the resource accepted them */
    List<Write> writes(String name) throws SQLException {
        List<Write> writes = new ArrayList<>();
        try (PreparedStatement s = connection().prepareStatement(
                "SELECT id, token, holder, value FROM chaos_write WHERE name = ? ORDER BY id")) {
            s.setString(1, name);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    writes.add(new Write(rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getLong(4)));
                }
            }
        }
        return writes;
    }

    /** @return the counter of a run's resource: how many writes it accepted */
    long value(String name) throws SQLException {
        try (PreparedStatement s = connection().prepareStatement("SELECT value FROM chaos_resource WHERE name = ?")) {
            s.setString(1, name);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        }
    }

    private Connection connection() throws SQLException {
        if (connection == null) {
            connection = DriverManager.getConnection(url);
        }
        return connection;
    }

    @Override
    public void close() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // a broken connection: nothing to give back
            }
            connection = null;
        }
    }
}
