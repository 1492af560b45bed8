package io.txlock.jdbc;

import io.txlock.LockInfo;
import io.txlock.LockNotHeldException;
import io.txlock.spi.Attempt;
import io.txlock.spi.LockRequest;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

/**
 * What {@link OptimisticVersion} and {@link UniqueInsert} share: the grant is the row's committed state, with
 * a lease in database time. In LEASE scope every statement commits at once, so no row lock outlives a
 * statement; in TRANSACTION scope the statements join the caller's transaction, and waiters block on its row
 * lock (bounded by their wait) until it ends.
 */
abstract class RowLeaseStrategy implements LockStrategy {

    final JdbcAccess db;

    RowLeaseStrategy(JdbcAccess db) {
        this.db = db;
    }

    /** One attempt on {@code c}, its waiting statements given {@code r}'s wait. */
    abstract Attempt acquireRow(Connection c, Statements st, LockRequest r) throws SQLException;

    /** Frees the row of a grant; returns the number of rows changed (0: no longer ours). */
    abstract int releaseRow(Connection c, Statements st, JdbcGrant g) throws SQLException;

    @Override
    public Attempt tryAcquire(LockRequest r) {
        Statements st = db.statements();
        JdbcAccess.SqlWork<Attempt> attempt = c -> {
            Attempt a = st.bounded(c, r.maxBlock(), r.transactional(), () -> acquireRow(c, st, r));
            return a == null ? Attempt.held() : a;
        };
        return r.transactional()
                ? db.onExistingRowInCallerTransaction(r.name(), attempt, "acquire '" + r.name() + "' in the caller's transaction")
                : db.autoCommitted(attempt, "acquire '" + r.name() + "'");
    }

    /** The row is ours with {@code token}: give it a token drawn while holding it ({@link Statements#retoken}). */
    Attempt granted(Connection c, Statements st, LockRequest r, long token) throws SQLException {
        java.util.OptionalLong held = st.retoken(c, r.name(), token);
        return held.isPresent()
                ? Attempt.granted(new JdbcGrant(r.name(), held.getAsLong(), r.owner().id(), !r.transactional(), r.transactional(), null))
                : Attempt.held();
    }

    static Attempt heldUntil(Statements.RowState s) {
        return s.millisLeft() == null ? Attempt.held() : Attempt.heldFor(Duration.ofMillis(s.millisLeft()));
    }

    /** The insert that grants a free name; a duplicate key (without ON CONFLICT) means held. */
    java.util.OptionalLong insertHeld(Connection c, Statements st, LockRequest r) throws SQLException {
        try {
            return st.tokened(c, st.insertHeld(r.maxBlock()), r.name(), r.owner().host(), r.owner().id(), r.lease().toMillis());
        } catch (SQLException e) {
            if (st.duplicateKey(e)) {
                return java.util.OptionalLong.empty();
            }
            throw e;
        }
    }

    @Override
    public void renew(JdbcGrant g, Duration lease) {
        int rows = db.autoCommitted(c -> Statements.update(c, db.statements().renew(), lease.toMillis(), g.name(),
                g.fencingToken(), g.ownerId()), "renew '" + g.name() + "'");
        if (rows == 0) {
            throw new LockNotHeldException("lock " + g + " is no longer held by " + g.ownerId()
                    + ": its lease ran out and the row was taken over or reaped");
        }
    }

    @Override
    public void release(JdbcGrant g) {
        int rows = db.autoCommitted(c -> releaseRow(c, db.statements(), g), "release '" + g.name() + "'");
        if (rows == 0) {
            throw new LockNotHeldException("lock " + g + " is no longer held by " + g.ownerId()
                    + ": its lease ran out and the row was taken over or reaped");
        }
    }

    @Override
    public void beforeCompletion(JdbcGrant g) {
        db.inCallerTransaction(c -> releaseRow(c, db.statements(), g), "free '" + g.name() + "' before commit");
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return db.autoCommitted(c -> db.statements().readInfo(c, name), "inspect '" + name + "'");
    }
}
