package io.txlock.jdbc;

import io.txlock.spi.Cancellation;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Makes the statements of one attempt cancellable while it may block: the attempt's thread runs inside
 * {@link #during}, every statement it prepares is tracked, and the core's cancel (an interrupted caller, a closing
 * manager) cancels the statement running now with {@link Statement#cancel()} and refuses any later one.
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

    private void cancel() {
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

    /** The attempt returned: nothing to cancel any more. */
    void close() {
        CURRENT.remove();
        running = null;
        registration.close();
    }
}
