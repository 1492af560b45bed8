package io.txlock.jpa;

import io.txlock.LockInfo;
import io.txlock.jdbc.RowLock;
import io.txlock.spi.Attempt;
import io.txlock.spi.LockRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * {@link io.txlock.Strategy#SELECT_FOR_UPDATE}: the lock is the row lock of the name's row; waiters block in the
 * database, bounded by their wait. In TRANSACTION scope {@link JpaStrategy}'s path takes it with
 * {@code PESSIMISTIC_WRITE} in the caller's transaction. In LEASE scope it is the JDBC provider's algorithm
 * ({@link RowLock}), run as native queries in the transaction of an entity manager of the provider's own
 * ({@link JpaSession}), which stays open until release or until the database notices its connection died.
 */
final class JpaSelectForUpdate extends JpaStrategy {

    private final RowLock<JpaSession> rowLock;

    JpaSelectForUpdate(JpaAccess db) {
        super(db);
        this.rowLock = new RowLock<>((r, held) -> new JpaSession(db.openTransaction()));
    }

    /** @return false: whoever holds the row lock holds the lock */
    @Override
    boolean respectsHolders() {
        return false;
    }

    /** @return null: the lock lasts as long as the transaction holding the row lock */
    @Override
    Instant expiresAt(Instant now, Duration lease) {
        return null;
    }

    @Override
    Attempt acquireLease(LockRequest r) {
        return JpaSession.unchecked(() -> rowLock.acquire(db.sql(), r,
                (request, token, holder) -> new JpaGrant(request.name(), token, request.owner().id(), true, false, holder)));
    }

    @Override
    void renew(JpaGrant g, Duration lease) {
        rowLock.renew(g.holder(), g, lease);
    }

    @Override
    void release(JpaGrant g) {
        rowLock.release(g.holder(), db.sql(), g);
    }

    @Override
    Optional<LockInfo> inspect(String name) {
        return db.inOwnTransaction(em -> JpaSession.unchecked(() -> RowLock.inspect(new JpaSession(em), db.sql(), name,
                db.readHeldRow(em, name).map(JpaStrategy::info))));
    }
}
