package io.txlock.jdbc;

import io.txlock.LockInfo;
import io.txlock.LockNotHeldException;
import io.txlock.spi.Attempt;
import io.txlock.spi.LockRequest;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * {@link io.txlock.Strategy#SELECT_FOR_UPDATE}: the lock is the row lock of the name's row. Waiters block in the
 * database, bounded by their wait. In TRANSACTION scope the row lock belongs to the caller's transaction and is
 * taken by one upsert that creates the row if it is missing (see each dialect's {@code upsertLock}; on
 * MySQL/MariaDB the row is first created outside it, see {@link JdbcAccess#onExistingRowInCallerTransaction}). In LEASE
 * scope it belongs to a connection whose transaction stays open until release (a rollback) or until the
 * database notices the connection died; there a missing row is first created, committed and FREE, so that
 * other nodes can see the row is locked.
 */
final class SelectForUpdate implements LockStrategy {

    private final JdbcAccess db;

    SelectForUpdate(JdbcAccess db) {
        this.db = db;
    }

    @Override
    public Attempt tryAcquire(LockRequest r) {
        if (r.transactional()) {
            OptionalLong token = db.onExistingRowInCallerTransaction(r.name(), c -> retoken(c, r.name(), lockRow(c, r, true)),
                    "lock the row of '" + r.name() + "' in the caller's transaction");
            return token.isPresent()
                    ? Attempt.granted(new JdbcGrant(r.name(), token.getAsLong(), r.owner().id(), false, true, null))
                    : Attempt.held();
        }
        Connection c;
        try {
            c = db.openTransaction("lock '" + r.name() + "' in LEASE scope");
        } catch (SQLException e) {
            throw db.failure("open a connection to lock '" + r.name() + "'", e, false);
        }
        try {
            OptionalLong token = lockExistingRow(c, r);
            if (token != null && token.isEmpty()) {
                c.rollback();
                if (db.statements().createFreeRow(c, r.name(), r.maxBlock())) {
                    c.commit();
                    token = lockExistingRow(c, r);
                }
            }
            if (token != null && token.isPresent()) {
                token = retoken(c, r.name(), token);
                return Attempt.granted(new JdbcGrant(r.name(), token.getAsLong(), r.owner().id(), true, false, c));
            }
            JdbcAccess.endTransaction(c);
            return Attempt.held();
        } catch (SQLException e) {
            closeQuietly(c);
            throw db.failure("lock the row of '" + r.name() + "'", e, false);
        } catch (RuntimeException e) {
            closeQuietly(c);
            throw e;
        }
    }

    /** @return {@code token} replaced by one drawn now that the row lock is held ({@link Statements#retoken}) */
    private OptionalLong retoken(Connection c, String name, OptionalLong token) throws SQLException {
        if (token.isEmpty()) {
            return token;
        }
        OptionalLong held = db.statements().retoken(c, name, token.getAsLong());
        if (held.isEmpty()) {
            throw new SQLException("the row of '" + name + "' changed under its row lock");
        }
        return held;
    }

    /** @return the token; empty if the row is missing; null if the wait ran out */
    private OptionalLong lockExistingRow(Connection c, LockRequest r) throws SQLException {
        Statements st = db.statements();
        return st.bounded(c, r.maxBlock(), false, () -> st.tokened(c, st.render(st.lockExisting, r.maxBlock(), false),
                r.owner().host(), r.owner().id(), r.name()));
    }

    private OptionalLong lockRow(Connection c, LockRequest r, boolean callerTx) throws SQLException {
        Statements st = db.statements();
        OptionalLong token = st.bounded(c, r.maxBlock(), callerTx, () -> st.tokened(c,
                st.render(st.upsertLock(), r.maxBlock(), callerTx), r.name(), r.owner().host(), r.owner().id()));
        return token == null ? OptionalLong.empty() : token;
    }

    @Override
    public void renew(JdbcGrant g, Duration lease) {
        boolean alive;
        try {
            alive = g.connection().isValid((int) Math.max(1, Math.min(30, lease.toSeconds() / 3)));
        } catch (SQLException e) {
            alive = false;
        }
        if (!alive) {
            throw new LockNotHeldException("lock " + g + " is gone: the connection holding its row lock was lost");
        }
    }

    @Override
    public void release(JdbcGrant g) {
        try {
            JdbcAccess.endTransaction(g.connection());
        } catch (SQLException e) {
            throw new LockNotHeldException("lock " + g + " may have been lost before release: the connection holding its"
                    + " row lock failed (" + e.getMessage() + ")");
        }
    }

    @Override
    public void beforeCompletion(JdbcGrant g) {
        db.inCallerTransaction(c -> Statements.update(c, db.statements().free, g.name(), g.fencingToken(), g.ownerId()),
                "free '" + g.name() + "' before commit");
    }

    /**
     * The row shows a holder only once committed; a LEASE holder's row lock is invisible to others until then,
     * so a locked row is reported as held by an unknown owner, with token 0.
     */
    @Override
    public Optional<LockInfo> inspect(String name) {
        return db.inOwnTransaction(c -> {
            Statements st = db.statements();
            Optional<LockInfo> info = st.readInfo(c, name);
            if (info.isEmpty() && st.rowLockedByOther(c, name)) {
                return Optional.of(new LockInfo(name, null, null, 0, null, null, 1));
            }
            return info;
        }, "inspect '" + name + "'");
    }

    private static void closeQuietly(Connection c) {
        try {
            JdbcAccess.endTransaction(c);
        } catch (SQLException ignored) {
            // broken connection; the pool discards it
        }
    }
}
