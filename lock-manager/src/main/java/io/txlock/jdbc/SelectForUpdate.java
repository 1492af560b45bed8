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
 * {@link io.txlock.Strategy#SELECT_FOR_UPDATE}: the lock is the row lock of the name's row, taken by one locking
 * read that also draws the fencing token ({@link Statements#lockRow}); nothing is written. Waiters block in the
 * database, bounded by their wait. In TRANSACTION scope the row lock belongs to the caller's transaction (on
 * MySQL/MariaDB a missing row is first created outside it, see {@link JdbcAccess#onExistingRowInCallerTransaction}).
 * In LEASE scope it belongs to a connection whose transaction stays open until release (a rollback) or until the
 * database notices the connection died. A missing row is created FREE first: committed at once in LEASE scope,
 * so that other nodes can see the row is locked; in the caller's transaction otherwise.
 */
final class SelectForUpdate implements LockStrategy {

    private final JdbcAccess db;
    /** LEASE locks held now, each on a pooled connection of its own. */
    private final java.util.concurrent.atomic.AtomicInteger heldConnections = new java.util.concurrent.atomic.AtomicInteger();

    SelectForUpdate(JdbcAccess db) {
        this.db = db;
    }

    @Override
    public Attempt tryAcquire(LockRequest r) {
        if (r.transactional()) {
            OptionalLong token = db.onExistingRowInCallerTransaction(r.name(), c -> lock(c, r, true),
                    "lock the row of '" + r.name() + "' in the caller's transaction");
            return token.isPresent()
                    ? Attempt.granted(new JdbcGrant(r.name(), token.getAsLong(), r.owner().id(), false, true, null))
                    : Attempt.held();
        }
        JdbcAccess.OwnTransaction tx;
        try {
            // once the locks hold the whole pool, wait for a connection only as long as for the lock
            tx = db.openTransaction("lock '" + r.name() + "' in LEASE scope", heldConnections.get(), r.maxBlock());
        } catch (SQLException e) {
            throw db.failure("open a connection to lock '" + r.name() + "' (this provider holds " + heldConnections.get()
                    + " SELECT_FOR_UPDATE locks in LEASE scope, each on a pooled connection of its own until released: a pool"
                    + " must have more connections than the locks held at once, or use OPTIMISTIC_VERSION or UNIQUE_INSERT,"
                    + " which hold none)", e, false);
        }
        try {
            OptionalLong token = lock(tx.connection(), r, false);
            if (token.isPresent()) {
                heldConnections.incrementAndGet();
                return Attempt.granted(new JdbcGrant(r.name(), token.getAsLong(), r.owner().id(), true, false, tx));
            }
            tx.end();
            return Attempt.held();
        } catch (SQLException e) {
            tx.endQuietly();
            throw db.failure("lock the row of '" + r.name() + "'", e, false);
        } catch (RuntimeException e) {
            tx.endQuietly();
            throw e;
        }
    }

    /** @return the token, or empty if the row stayed locked by another transaction for the request's whole wait */
    private OptionalLong lock(Connection c, LockRequest r, boolean callerTx) throws SQLException {
        Statements st = db.statements();
        SqlSession s = SqlSession.of(c);
        long deadline = System.nanoTime() + r.maxBlock().toNanos();
        OptionalLong token = st.lockRow(s, r.name(), r.maxBlock(), callerTx);
        if (token != null && token.isEmpty()) {
            if (!callerTx) {
                c.rollback();
            }
            if (!st.createFreeRow(s, r.name(), left(deadline), callerTx)) {
                return OptionalLong.empty();
            }
            if (!callerTx) {
                c.commit();
            }
            token = st.lockRow(s, r.name(), left(deadline), callerTx);
        }
        return token == null ? OptionalLong.empty() : token;
    }

    private static Duration left(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    @Override
    public void renew(JdbcGrant g, Duration lease) {
        if (!JdbcAccess.alive(g.transaction().connection(), lease)) {
            throw new LockNotHeldException("lock " + g + " is gone: the connection holding its row lock was lost");
        }
    }

    @Override
    public void release(JdbcGrant g) {
        if (g.transaction() != null && !g.endsWithTransaction()) {
            heldConnections.decrementAndGet();
        }
        try {
            db.statements().endRowLock(g.transaction().connection());
            g.transaction().close();
        } catch (SQLException e) {
            throw new LockNotHeldException("lock " + g + " may have been lost before release: the connection holding its"
                    + " row lock failed (" + e.getMessage() + ")");
        }
    }

    @Override
    public void beforeCompletion(JdbcGrant g) {
    }

    /**
     * The row never shows a holder: a locked row is reported as held by an unknown owner, with token 0 (the core
     * fills in the owner where its own manager holds the lock).
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
}
