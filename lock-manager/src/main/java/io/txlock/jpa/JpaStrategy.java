package io.txlock.jpa;

import io.txlock.LockInfo;
import io.txlock.entity.LockState;
import io.txlock.entity.MethodLock;
import io.txlock.spi.Attempt;
import io.txlock.spi.LockRequest;
import jakarta.persistence.EntityManager;
import jakarta.persistence.FlushModeType;
import jakarta.persistence.PersistenceException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What the three strategies share: their TRANSACTION path through the caller's entity manager. In TRANSACTION scope all of them take the name's row lock with
 * {@code PESSIMISTIC_WRITE} in the caller's transaction, so that waiters block on it until that transaction ends,
 * and write the grant there; they differ in whether a committed holder counts ({@link #respectsHolders()}), how long
 * a grant's row says it lasts, and how the row is freed.
 *
 * <p>A grant never takes its token from JPA's {@code @Version} increment: it reads the next token from the same
 * sequence (MySQL: AUTO_INCREMENT table) as the JDBC provider while it holds the row (after its row lock, or after
 * the row lock it needs), so it is greater than the token of every earlier holder, who drew theirs while holding,
 * before releasing. Tokens are written with JPQL bulk updates that
 * set {@code version} explicitly, guarded by the version read or locked. The managed {@link MethodLock} instances
 * are never flushed with changes (which would make JPA write {@code version + 1}); they are only read, locked,
 * persisted new, and detached.
 */
abstract class JpaStrategy {

    /** Grants a row whose version is still {@code :expected}. */
    static final String GRANT = "UPDATE MethodLock m SET m.version = :token, m.state = :held, m.ownerHost = :host,"
            + " m.ownerId = :owner, m.holdCount = 1, m.acquiredAt = :now, m.expiresAt = :until, m.updatedAt = :now"
            + " WHERE m.name = :name AND m.version = :expected";
    /** How long a free row created for a lock stays out of the reaper's reach: longer than it takes to lock it. */
    static final Duration FREE_ROW_GRACE = Duration.ofMinutes(1);

    final JpaAccess db;

    JpaStrategy(JpaAccess db) {
        this.db = db;
    }

    /** One attempt in LEASE scope, with the provider's own entity managers. */
    abstract Attempt acquireLease(LockRequest r);

    abstract void renew(JpaGrant g, Duration lease);

    abstract void release(JpaGrant g);

    abstract Optional<LockInfo> inspect(String name);

    /** @return whether a row HELD by a live holder may not be granted, even when its row lock was obtained */
    abstract boolean respectsHolders();

    /** @return {@code expires_at} of a new grant */
    abstract Instant expiresAt(Instant now, Duration lease);

    /**
     * One attempt in TRANSACTION scope. First the row's committed state is read in a transaction of its own (the
     * caller's own snapshot may be stale, and a row of a live LEASE holder must not be locked by the caller's
     * transaction); a missing row is created, committed and FREE, so that no database locks a gap for it. Then
     * the row is locked in the caller's transaction, waiting at most {@code maxBlock}, and granted there. On
     * PostgreSQL this runs in a savepoint, rolled back unless granted, so neither a timeout nor a refusal leaves
     * the caller's transaction aborted or the row locked.
     */
    Attempt acquireInCallerTransaction(LockRequest r) {
        EntityManager em = db.callerEntityManager();
        long deadline = System.nanoTime() + r.maxBlock().toNanos();
        JpaAccess.RowState committed = db.inOwnTransaction(own -> db.readState(own, r.name()));
        if (committed != null && respectsHolders() && committed.live()) {
            return heldFor(committed.millisLeft());
        }
        if (committed == null && !createFreeRow(r.name(), left(deadline))) {
            return Attempt.held();
        }
        boolean savepoint = db.usesSavepoints();
        if (savepoint) {
            db.savepoint(em);
        }
        Attempt attempt;
        try {
            Duration wait = left(deadline);
            Optional<MethodLock> row = db.bounded(em, wait, true, () -> db.lockRow(em, r.name(), wait));
            attempt = row == null ? Attempt.held()
                    : row.map(locked -> grantLocked(em, r, locked)).orElseGet(() -> Attempt.heldFor(Duration.ZERO));
        } catch (RuntimeException e) {
            if (savepoint) {
                try {
                    db.rollbackToSavepoint(em);
                } catch (RuntimeException undoFailed) {
                    e.addSuppressed(undoFailed);
                }
            }
            throw e;
        }
        if (savepoint) {
            if (attempt.isGranted()) {
                db.releaseSavepoint(em);
            } else {
                db.rollbackToSavepoint(em);
            }
        }
        return attempt;
    }

    /** Grants a row whose lock the caller's transaction holds, unless a live holder's row must be respected. */
    private Attempt grantLocked(EntityManager em, LockRequest r, MethodLock row) {
        try {
            JpaAccess.Clock clock = db.tokenAndNow(em);
            if (respectsHolders() && row.getState() == LockState.HELD
                    && (row.getExpiresAt() == null || !row.getExpiresAt().isBefore(clock.now()))) {
                return row.getExpiresAt() == null ? Attempt.held()
                        : Attempt.heldFor(Duration.between(clock.now(), row.getExpiresAt()));
            }
            return grant(em, r, row.getVersion(), clock) ? granted(r, clock.token()) : Attempt.held();
        } finally {
            em.detach(row);
        }
    }

    /**
     * Writes a grant with a JPQL bulk update.
     *
     * @return whether the row was granted: still at version {@code expected}
     */
    boolean grant(EntityManager em, LockRequest r, long expected, JpaAccess.Clock clock) {
        return em.createQuery(GRANT).setFlushMode(FlushModeType.COMMIT)
                .setParameter("token", clock.token())
                .setParameter("held", LockState.HELD)
                .setParameter("host", r.owner().host())
                .setParameter("owner", r.owner().id())
                .setParameter("now", clock.now())
                .setParameter("until", expiresAt(clock.now(), r.lease()))
                .setParameter("name", r.name())
                .setParameter("expected", expected)
                .executeUpdate() == 1;
    }

    /**
     * Creates the name's row, FREE, in a transaction of its own, committed.
     *
     * @return true if it exists now (created here or by someone else); false if a lock wait ran out
     */
    boolean createFreeRow(String name, Duration maxBlock) {
        try {
            return db.inOwnTransaction(em -> {
                Boolean created = db.bounded(em, maxBlock, false, () -> {
                    JpaAccess.Clock clock = db.tokenAndNow(em);
                    MethodLock row = new MethodLock(name, clock.token(), clock.now());
                    row.setExpiresAt(clock.now().plus(FREE_ROW_GRACE));
                    em.persist(row);
                    em.flush();
                    return Boolean.TRUE;
                });
                if (created == null) {
                    em.getTransaction().setRollbackOnly();
                }
                return created != null;
            });
        } catch (PersistenceException e) {
            if (db.sql().duplicateKey(e)) {
                return true;
            }
            throw e;
        }
    }

    /**
     * Sets the row of a grant that joined the caller's transaction free, inside it, before it commits. Free, not
     * deleted (not even by UNIQUE_INSERT): waiters queue on the row's lock, and a deleted row would leave them a
     * locking read of a missing row, which on MySQL/MariaDB locks the gap where it was and so blocks its own
     * re-creation until their transactions end.
     */
    void beforeCompletion(JpaGrant g) {
        JpaAccess.update(db.callerEntityManager(), db.sql().free(), g.name(), g.fencingToken(), g.ownerId());
    }

    /** @return granted in the caller's transaction */
    static Attempt granted(LockRequest r, long token) {
        return Attempt.granted(new JpaGrant(r.name(), token, r.owner().id(), false, true, null));
    }

    static Attempt heldFor(Long millisLeft) {
        return millisLeft == null ? Attempt.held() : Attempt.heldFor(Duration.ofMillis(millisLeft));
    }

    static Duration left(long deadlineNanos) {
        return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
    }

    static LockInfo info(MethodLock row) {
        return new LockInfo(row.getName(), row.getOwnerHost(), row.getOwnerId(), row.getVersion(), row.getAcquiredAt(),
                row.getExpiresAt(), Math.max(1, row.getHoldCount()));
    }
}
