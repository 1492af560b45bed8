package io.txlock.it.app;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * A read-modify-write counter in the database that loses updates unless callers are mutually excluded; it also
 * records how many callers were inside at once.
 */
@ApplicationScoped
public class Counters {

    @Resource(lookup = "java:app/jdbc/txlock")
    DataSource dataSource;

    private final Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> mostInside = new ConcurrentHashMap<>();

    /** Reads the counter, works a little, writes it back plus one: on the caller's transaction, if any. */
    public void increment(String name) {
        int now = inside.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
        mostInside.computeIfAbsent(name, k -> new AtomicInteger()).accumulateAndGet(now, Math::max);
        try (Connection c = dataSource.getConnection()) {
            long value = read(c, name);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(3)); // the work the lock protects
            try (PreparedStatement ps = c.prepareStatement(value == 0
                    ? "INSERT INTO counters (counter_value, name) VALUES (?, ?)"
                    : "UPDATE counters SET counter_value = ? WHERE name = ?")) {
                ps.setLong(1, value + 1);
                ps.setString(2, name);
                ps.executeUpdate();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        } finally {
            inside.get(name).decrementAndGet();
        }
    }

    /** @return the counter's committed value */
    public long value(String name) {
        try (Connection c = dataSource.getConnection()) {
            return read(c, name);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return the most callers that were inside {@link #increment} at once */
    public int mostInside(String name) {
        return mostInside.getOrDefault(name, new AtomicInteger()).get();
    }

    private static long read(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT counter_value FROM counters WHERE name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }
}
