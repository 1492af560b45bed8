package io.txlock.jpa;

import io.txlock.LockInfo;
import io.txlock.jdbc.RowLease;
import io.txlock.spi.Attempt;
import io.txlock.spi.Grant;
import io.txlock.spi.LockRequest;
import jakarta.persistence.EntityTransaction;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * {@link io.txlock.Strategy#OPTIMISTIC_VERSION} and {@link io.txlock.Strategy#UNIQUE_INSERT}: in LEASE scope the JDBC
 * provider's algorithm ({@link RowLease}), run as native queries in a short transaction of the provider's own per
 * attempt, renewal and release; in TRANSACTION scope {@link JpaStrategy}'s path through the caller's entity manager.
 * No row lock outlives a LEASE attempt.
 */
final class JpaRowLease extends JpaStrategy {

    private final RowLease lease;

    JpaRowLease(JpaAccess db, RowLease lease) {
        super(db);
        this.lease = lease;
    }

    @Override
    boolean respectsHolders() {
        return true;
    }

    @Override
    Instant expiresAt(Instant now, Duration lease) {
        return now.plus(lease);
    }

    /**
     * A grant commits with its transaction; one the JPA provider marked rollback-only (after a statement failed that
     * the algorithm took in its stride, such as a duplicate key) would not, so it counts as held.
     */
    @Override
    Attempt acquireLease(LockRequest r) {
        return db.inOwnTransaction(em -> {
            Attempt attempt = JpaSession.unchecked(() -> lease.attempt(new JpaSession(em), db.sql(), r, JpaRowLease::grant));
            EntityTransaction tx = em.getTransaction();
            if (attempt.isGranted() && !tx.getRollbackOnly()) {
                return attempt;
            }
            tx.setRollbackOnly();
            return attempt.isGranted() ? Attempt.held() : attempt;
        });
    }

    private static Grant grant(LockRequest r, long token) {
        return new JpaGrant(r.name(), token, r.owner().id(), true, false, null);
    }

    @Override
    void renew(JpaGrant g, Duration duration) {
        db.inOwnTransaction(em -> JpaSession.unchecked(() -> {
            lease.renew(new JpaSession(em), db.sql(), g, g.ownerId(), duration);
            return null;
        }));
    }

    @Override
    void release(JpaGrant g) {
        db.inOwnTransaction(em -> JpaSession.unchecked(() -> {
            lease.release(new JpaSession(em), db.sql(), g, g.ownerId());
            return null;
        }));
    }

    @Override
    Optional<LockInfo> inspect(String name) {
        return db.inOwnTransaction(em -> db.readHeldRow(em, name).map(JpaStrategy::info));
    }
}
