package io.txlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Prepared statements kept open on a database connection and reused by whoever borrows it from the pool next: the
 * provider's own connections run the same few statements over and over, and preparing one again costs client CPU
 * every time (H2 parses a {@code SELECT … FOR UPDATE} at every {@code prepareStatement}, as its session cache skips
 * locking reads; both MySQL drivers parse every statement on the client; HikariCP keeps no statements across
 * borrowings). They are kept on the pooled connection's own connection ({@link Connection#unwrap}), as the pool's
 * handle closes its statements when it is given back, and live as long as it: when the pool closes it, they are
 * closed with it and dropped here.
 *
 * <p>Only for connections whose transaction the provider ends itself (a pool that tracks uncommitted work by the
 * statements run through its handle does not see these), and used by one thread at a time, the borrower.
 */
final class ReusedStatements {

    /** The most statements kept per connection, of each kind (generated keys read or not); the least recently used one is closed beyond it. */
    static final int PER_CONNECTION = 32;

    private static final ConcurrentHashMap<Connection, ReusedStatements> BY_CONNECTION = new ConcurrentHashMap<>();
    private static volatile int purgeAt = 64;

    private final Map<String, PreparedStatement> statements = leastRecentlyUsedClosed();
    /** The statements whose generated keys are read, by their SQL. */
    private final Map<String, PreparedStatement> returningKeys = leastRecentlyUsedClosed();
    /** Statements cancelled while they ran ({@link CancellableStatements}): never run again, as a driver may keep the cancel's state on them. */
    private final Set<java.sql.Statement> cancelled = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
    private final Connection connection;

    private ReusedStatements(Connection connection) {
        this.connection = connection;
    }

    /**
     * @param c a connection the provider borrowed and ends the transactions of itself
     * @return the statements kept on its underlying connection
     * @throws SQLException if the connection cannot be unwrapped
     */
    static ReusedStatements of(Connection c) throws SQLException {
        Connection physical = c.unwrap(Connection.class);
        if (physical == null) {
            physical = c;
        }
        ReusedStatements kept = BY_CONNECTION.get(physical);
        if (kept == null) {
            kept = BY_CONNECTION.computeIfAbsent(physical, ReusedStatements::new);
            if (BY_CONNECTION.size() > purgeAt) {
                purgeClosed();
            }
        }
        return kept;
    }

    /** Forgets the connections closed since (a pool's evicted ones), whose statements were closed with them. */
    private static synchronized void purgeClosed() {
        if (BY_CONNECTION.size() <= purgeAt) {
            return;
        }
        for (Iterator<Connection> it = BY_CONNECTION.keySet().iterator(); it.hasNext(); ) {
            Connection c = it.next();
            try {
                if (c.isClosed()) {
                    it.remove();
                }
            } catch (SQLException | RuntimeException e) {
                it.remove();
            }
        }
        purgeAt = Math.max(64, 2 * BY_CONNECTION.size());
    }

    /** @return the number of connections statements are kept for now (for tests) */
    static int connectionsKept() {
        return BY_CONNECTION.size();
    }

    /** @return the statements kept now, by their SQL, those whose generated keys are read marked so (for tests) */
    Map<String, PreparedStatement> kept() {
        Map<String, PreparedStatement> kept = new java.util.HashMap<>(statements);
        returningKeys.forEach((sql, ps) -> kept.put("-- generated keys\n" + sql, ps));
        return Map.copyOf(kept);
    }

    /** @return a map of statements that closes its least recently used one beyond {@link #PER_CONNECTION} */
    private static Map<String, PreparedStatement> leastRecentlyUsedClosed() {
        return new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, PreparedStatement> eldest) {
                if (size() <= PER_CONNECTION) {
                    return false;
                }
                closeQuietly(eldest.getValue());
                return true;
            }
        };
    }

    /**
     * @param sql the statement
     * @param params its parameters
     * @return the statement, prepared the first time, with {@code params} bound, tracked by the running attempt
     *     ({@link CancellableStatements}); never to be closed by the caller
     * @throws SQLException if it failed, or the attempt was cancelled
     */
    PreparedStatement prepare(String sql, Object... params) throws SQLException {
        PreparedStatement ps = prepared(sql);
        CancellableStatements.track(ps, this);
        Statements.bind(ps, 1, params);
        return ps;
    }

    /**
     * {@link #prepare}, for a statement that runs even once the attempt was cancelled (one that lets go of what the
     * attempt took): it is not tracked, so a cancel neither refuses nor cancels it
     */
    PreparedStatement prepareUntracked(String sql, Object... params) throws SQLException {
        PreparedStatement ps = prepared(sql);
        Statements.bind(ps, 1, params);
        return ps;
    }

    private PreparedStatement prepared(String sql) throws SQLException {
        return prepared(statements, sql, false);
    }

    /** @return the statement kept in {@code kept}, prepared the first time, and again if it was closed or cancelled */
    private PreparedStatement prepared(Map<String, PreparedStatement> kept, String sql, boolean returningKeys) throws SQLException {
        PreparedStatement ps = kept.get(sql);
        if (ps != null && !cancelled.isEmpty() && cancelled.remove(ps)) {
            closeQuietly(ps);
            ps = null;
        }
        if (ps == null || ps.isClosed()) {
            ps = returningKeys ? connection.prepareStatement(sql, java.sql.Statement.RETURN_GENERATED_KEYS) : connection.prepareStatement(sql);
            kept.put(sql, ps);
        }
        return ps;
    }

    /** @param ps a statement of these that was cancelled ({@link java.sql.Statement#cancel()}): it is prepared anew at its next use */
    void cancelled(java.sql.Statement ps) {
        cancelled.add(ps);
    }

    /**
     * {@link #prepare}, for a statement whose generated keys are read ({@link java.sql.Statement#RETURN_GENERATED_KEYS})
     */
    PreparedStatement prepareReturningKeys(String sql, Object... params) throws SQLException {
        PreparedStatement ps = prepared(returningKeys, sql, true);
        CancellableStatements.track(ps, this);
        Statements.bind(ps, 1, params);
        return ps;
    }

    private static void closeQuietly(PreparedStatement ps) {
        try {
            ps.close();
        } catch (SQLException ignored) {
            // its connection is gone: nothing to free
        }
    }
}
