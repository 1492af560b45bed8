package io.txlock.jdbc;

import io.txlock.spi.Cancellation;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Makes the statements of one attempt cancellable while it may block: the attempt's thread runs inside
 * {@link #during}, every statement it prepares is tracked, and the core's cancel (an interrupted caller, a closing
 * manager) cancels the statement running now with {@link Statement#cancel()} and refuses any later one.
 *
 * <p>A driver's cancel may reach whatever runs on the connection when it arrives (MariaDB Connector/J sends
 * {@code KILL QUERY} for the connection whenever it is busy), so a cancel must never outlive the attempt's use of the
 * connection: the attempt {@link #settle settles} before it gives a connection back, and a cancel runs under the
 * scope's monitor.
 */
final class CancellableStatements {

    /** SQLState of a statement refused because its attempt was cancelled (PostgreSQL's query_canceled). */
    static final String CANCELLED = "57014";

    private static final ThreadLocal<CancellableStatements> CURRENT = new ThreadLocal<>();

    private final Cancellation cancellation;
    private final Cancellation.Registration registration;
    private volatile Statement running;
    /** Where {@link #running} is kept for reuse, or null; written before it. */
    private volatile ReusedStatements keptBy;

    private CancellableStatements(Cancellation cancellation) {
        this.cancellation = cancellation;
        this.registration = cancellation.onCancel(this::cancel);
    }

    /**
     * @param cancellation the attempt's
     * @return a scope for the calling thread, to {@link #close} when the attempt returned
     */
    static CancellableStatements during(Cancellation cancellation) {
        CancellableStatements scope = new CancellableStatements(cancellation);
        CURRENT.set(scope);
        return scope;
    }

    /**
     * Tracks a statement about to run on this thread, if an attempt's scope is open.
     *
     * @throws SQLException if the attempt was cancelled already
     */
    static void track(Statement statement) throws SQLException {
        track(statement, null);
    }

    /**
     * @param keptBy the statements that keep it for reuse ({@link ReusedStatements}), which then prepare it anew if it
     *     is cancelled; null for a statement of the attempt's own, which is closed when the attempt was cancelled
     *     already
     */
    static void track(Statement statement, ReusedStatements keptBy) throws SQLException {
        CancellableStatements scope = CURRENT.get();
        if (scope != null) {
            if (scope.cancellation.isCancelled()) {
                if (keptBy == null) {
                    statement.close();
                }
                throw new SQLException("the lock attempt was cancelled", CANCELLED);
            }
            scope.keptBy = keptBy;
            scope.running = statement;
        }
    }

    private synchronized void cancel() {
        Statement s = running;
        if (s != null) {
            ReusedStatements kept = keptBy;
            if (kept != null) {
                kept.cancelled(s);
            }
            try {
                s.cancel();
            } catch (SQLException | RuntimeException e) {
                // closed already, or the driver cannot cancel: the statement's own lock timeout still bounds it
            }
        }
    }

    /**
     * Called on an attempt's thread before it gives a connection back to the pool (or ends its session): waits for a
     * cancel under way to finish, and keeps later ones away from the statements run so far, so that no cancel reaches
     * the connection's next user. Does nothing outside an attempt.
     */
    static void settle() {
        CancellableStatements scope = CURRENT.get();
        if (scope != null) {
            scope.forgetRunning();
        }
    }

    private synchronized void forgetRunning() {
        running = null;
        keptBy = null;
    }

    /** The attempt returned: nothing to cancel any more. */
    void close() {
        CURRENT.remove();
        forgetRunning();
        registration.close();
    }
}
