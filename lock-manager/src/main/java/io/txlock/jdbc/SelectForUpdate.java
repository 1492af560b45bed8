package io.txlock.jdbc;

import io.txlock.LockInfo;
import io.txlock.LockNotHeldException;
import io.txlock.spi.Attempt;
import io.txlock.spi.LockRequest;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * {@link io.txlock.Strategy#SELECT_FOR_UPDATE} ({@link RowLock}) on the JDBC provider's connections. In TRANSACTION
 * scope the row lock belongs to the caller's transaction (on MySQL/MariaDB a missing row is first created outside
 * it, see {@link JdbcAccess#onExistingRowInCallerTransaction}). In LEASE scope it belongs to a pooled connection of
 * its own, whose transaction stays open until release.
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
            OptionalLong token = db.onExistingRowInCallerTransaction(r.name(),
                    c -> RowLock.lock(SqlSession.of(c), db.statements(), r, true),
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
            OptionalLong token = RowLock.lock(tx.session(), db.statements(), r, false);
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

    @Override
    public void renew(JdbcGrant g, Duration lease) {
        RowLock.renew(g.transaction().session(), g, lease);
    }

    @Override
    public void release(JdbcGrant g) {
        if (g.transaction() != null && !g.endsWithTransaction()) {
            heldConnections.decrementAndGet();
        }
        RowLock.release(g.transaction().session(), db.sql(), g);
        try {
            g.transaction().close();
        } catch (SQLException e) {
            throw new LockNotHeldException("lock " + g + " may have been lost before release: the connection holding its"
                    + " row lock failed (" + e.getMessage() + ")");
        }
    }

    @Override
    public void beforeCompletion(JdbcGrant g) {
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return db.inOwnTransaction(c -> RowLock.inspect(SqlSession.of(c), db.sql(), name, db.statements().readInfo(c, name)),
                "inspect '" + name + "'");
    }
}
