package io.txlock.jpa;

import io.txlock.LockInfo;
import io.txlock.LockNotHeldException;
import io.txlock.entity.MethodLock;
import io.txlock.spi.Attempt;
import io.txlock.spi.LockRequest;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * {@link io.txlock.Strategy#SELECT_FOR_UPDATE}: the lock is the row lock that {@code PESSIMISTIC_WRITE} takes on the
 * name's {@link MethodLock}; waiters block in the database, bounded by their wait. In TRANSACTION scope the row lock
 * belongs to the caller's transaction. In LEASE scope it belongs to an entity manager of the provider's own whose
 * transaction stays open until release (a rollback) or until the database notices its connection died; a missing
 * row is first created, committed and FREE, so that other nodes can see the row is locked.
 */
final class JpaSelectForUpdate extends JpaStrategy {

    JpaSelectForUpdate(JpaAccess db) {
        super(db);
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
        long deadline = System.nanoTime() + r.maxBlock().toNanos();
        EntityManager em = db.openTransaction();
        try {
            Optional<MethodLock> row = db.bounded(em, r.maxBlock(), false, () -> db.lockRow(em, r.name(), r.maxBlock()));
            if (row != null && row.isEmpty()) {
                em.getTransaction().rollback(); // MySQL locked the gap where the row would be
                if (!createFreeRow(r.name(), left(deadline))) {
                    JpaAccess.endTransaction(em);
                    return Attempt.held();
                }
                em.getTransaction().begin();
                Duration wait = left(deadline);
                row = db.bounded(em, wait, false, () -> db.lockRow(em, r.name(), wait));
            }
            if (row == null || row.isEmpty()) {
                JpaAccess.endTransaction(em);
                return row == null ? Attempt.held() : Attempt.heldFor(Duration.ZERO);
            }
            JpaAccess.Clock clock = db.tokenAndNow(em);
            if (!grant(em, r, row.get().getVersion(), clock)) {
                JpaAccess.endTransaction(em);
                return Attempt.held();
            }
            em.clear();
            return granted(r, clock.token(), em);
        } catch (RuntimeException e) {
            try {
                JpaAccess.endTransaction(em);
            } catch (RuntimeException endFailed) {
                e.addSuppressed(endFailed);
            }
            throw e;
        }
    }

    /** Checks that the connection holding the row lock is still alive. */
    @Override
    void renew(JpaGrant g, Duration lease) {
        EntityManager em = g.holder();
        synchronized (em) {
            if (!em.isOpen()) {
                throw new LockNotHeldException("lock " + g + " was released: its row lock ended with its transaction");
            }
            try {
                JpaAccess.nativeQuery(em, "SELECT 1")
                        .setHint(JpaAccess.QUERY_TIMEOUT, (int) Math.max(1_000, Math.min(30_000, lease.toMillis() / 3)))
                        .getResultList();
            } catch (RuntimeException e) {
                throw new LockNotHeldException("lock " + g + " is gone: the connection holding its row lock failed ("
                        + e.getMessage() + ")");
            }
        }
    }

    @Override
    void release(JpaGrant g) {
        EntityManager em = g.holder();
        synchronized (em) {
            if (!em.isOpen()) {
                throw new LockNotHeldException("lock " + g + " was already released");
            }
            try {
                JpaAccess.endTransaction(em);
            } catch (RuntimeException e) {
                throw new LockNotHeldException("lock " + g + " may have been lost before release: the connection holding its"
                        + " row lock failed (" + e.getMessage() + ")");
            }
        }
    }

    /**
     * The row shows a holder only once committed; a LEASE holder's row lock is invisible to others until then, so
     * a locked row is reported as held by an unknown owner, with token 0.
     */
    @Override
    Optional<LockInfo> inspect(String name) {
        return db.inOwnTransaction(em -> {
            Optional<LockInfo> held = db.readHeldRow(em, name).map(JpaStrategy::info);
            if (held.isPresent() || db.readState(em, name) == null
                    || !JpaAccess.nativeQuery(em, db.sql().lockProbe(), name).getResultList().isEmpty()) {
                return held;
            }
            return Optional.of(new LockInfo(name, null, null, 0, null, null, 1));
        });
    }
}
