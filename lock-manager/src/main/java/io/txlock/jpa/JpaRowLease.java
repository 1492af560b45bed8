package io.txlock.jpa;

import io.txlock.LockInfo;
import io.txlock.LockNotHeldException;
import io.txlock.entity.LockState;
import io.txlock.entity.MethodLock;
import io.txlock.spi.Attempt;
import io.txlock.spi.LockRequest;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What {@link JpaOptimisticVersion} and {@link JpaUniqueInsert} share: the grant is the row's committed state, with
 * a lease in database time. In LEASE scope each attempt is one short transaction of the provider's own: a missing
 * row is granted by {@code persist} + {@code flush} of a HELD {@link MethodLock} (a duplicate key means someone
 * else was faster), an existing one by the version-guarded {@link #GRANT_IF_FREE}. No row lock outlives the
 * attempt; waiters retry, or block (bounded) on the row lock of a holder in TRANSACTION scope.
 */
abstract class JpaRowLease extends JpaStrategy {

    JpaRowLease(JpaAccess db) {
        super(db);
    }

    @Override
    boolean respectsHolders() {
        return true;
    }

    @Override
    Instant expiresAt(Instant now, Duration lease) {
        return now.plus(lease);
    }

    @Override
    Attempt acquireLease(LockRequest r) {
        return db.inOwnTransaction(em -> {
            Attempt attempt = db.bounded(em, r.maxBlock(), false, () -> attempt(em, r));
            if (attempt == null || !attempt.isGranted()) {
                em.getTransaction().setRollbackOnly();
            }
            return attempt == null ? Attempt.held() : attempt;
        });
    }

    /**
     * Wins the row with a provisional token (drawn before it won, so possibly smaller than that of a holder that
     * won and released in between), then, holding its row lock, gives it a token drawn now.
     */
    private Attempt attempt(EntityManager em, LockRequest r) {
        JpaAccess.RowState row = db.readState(em, r.name());
        if (row != null && row.live()) {
            return heldFor(row.millisLeft());
        }
        JpaAccess.Clock clock = db.tokenAndNow(em);
        if (row != null) {
            if (!grant(em, r, row.version(), clock, true)) {
                return Attempt.held();
            }
        } else if (!insertHeld(em, r, clock)) {
            return Attempt.heldFor(Duration.ZERO);
        }
        return retoken(em, r, clock.token());
    }

    /** @return false if another holder's row is there (a duplicate key) */
    private boolean insertHeld(EntityManager em, LockRequest r, JpaAccess.Clock clock) {
        MethodLock held = new MethodLock(r.name(), clock.token(), clock.now());
        held.setState(LockState.HELD);
        held.setOwnerHost(r.owner().host());
        held.setOwnerId(r.owner().id());
        held.setHoldCount(1);
        held.setAcquiredAt(clock.now());
        held.setExpiresAt(expiresAt(clock.now(), r.lease()));
        try {
            em.persist(held);
            em.flush();
        } catch (PersistenceException e) {
            if (db.sql().duplicateKey(e)) {
                return false;
            }
            throw e;
        }
        em.detach(held);
        return true;
    }

    @Override
    void renew(JpaGrant g, Duration lease) {
        int rows = db.inOwnTransaction(em -> JpaAccess.update(em, db.sql().renew(), lease.toMillis(), g.name(),
                g.fencingToken(), g.ownerId()));
        if (rows == 0) {
            throw new LockNotHeldException("lock " + g + " is no longer held by " + g.ownerId()
                    + ": its lease ran out and the row was taken over or reaped");
        }
    }

    @Override
    void release(JpaGrant g) {
        int rows = db.inOwnTransaction(em -> JpaAccess.update(em, releaseSql(), g.name(), g.fencingToken(), g.ownerId()));
        if (rows == 0) {
            throw new LockNotHeldException("lock " + g + " is no longer held by " + g.ownerId()
                    + ": its lease ran out and the row was taken over or reaped");
        }
    }

    @Override
    Optional<LockInfo> inspect(String name) {
        return db.inOwnTransaction(em -> db.readHeldRow(em, name).map(JpaStrategy::info));
    }
}
