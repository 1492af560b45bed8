package io.txlock.jdbc;

import io.txlock.LockInfo;
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
    private final RowLock<JdbcAccess.OwnTransaction> rowLock = new RowLock<>(this::open);

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
                    ? Attempt.granted(new JdbcGrant(r.name(), token.getAsLong(), null, false, true, null))
                    : Attempt.held();
        }
        try {
            return rowLock.acquire(db.sql(), r,
                    (request, token, tx) -> new JdbcGrant(request.name(), token, null, true, false, tx));
        } catch (SQLException e) {
            throw db.failure("lock the row of '" + r.name() + "'", e, false);
        }
    }

    /** @param held the LEASE locks held now: once they hold the whole pool, wait for a connection only as long as for the lock */
    private JdbcAccess.OwnTransaction open(LockRequest r, int held) {
        try {
            return db.openTransaction(() -> "lock '" + r.name() + "' in LEASE scope", held, r.maxBlock());
        } catch (SQLException e) {
            throw db.failure("open a connection to lock '" + r.name() + "' (this provider holds " + held
                    + " SELECT_FOR_UPDATE locks in LEASE scope, each on a pooled connection of its own until released: a pool"
                    + " must have more connections than the locks held at once, or use OPTIMISTIC_VERSION or UNIQUE_INSERT,"
                    + " which hold none)", e, false);
        }
    }

    @Override
    public void renew(JdbcGrant g, Duration lease) {
        rowLock.renew(g.transaction(), g, lease);
    }

    @Override
    public void release(JdbcGrant g) {
        rowLock.release(g.transaction(), db.sql(), g);
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
