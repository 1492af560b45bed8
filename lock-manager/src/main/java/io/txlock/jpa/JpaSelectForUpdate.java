package io.txlock.jpa;

import io.txlock.LockInfo;
import io.txlock.LockNotHeldException;
import io.txlock.jdbc.RowLock;
import io.txlock.spi.Attempt;
import io.txlock.spi.LockRequest;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * {@link io.txlock.Strategy#SELECT_FOR_UPDATE}: the lock is the row lock of the name's row; waiters block in the
 * database, bounded by their wait. In TRANSACTION scope {@link JpaStrategy}'s path takes it with
 * {@code PESSIMISTIC_WRITE} in the caller's transaction. In LEASE scope it is the JDBC provider's algorithm
 * ({@link RowLock}), run as native queries in the transaction of an entity manager of the provider's own, which
 * stays open until release or until the database notices its connection died.
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
        EntityManager em = db.openTransaction();
        try {
            OptionalLong token = JpaSession.unchecked(() -> RowLock.lock(new JpaSession(em), db.sql(), r));
            if (token.isPresent()) {
                return granted(r, token.getAsLong(), em);
            }
            JpaAccess.endTransaction(em);
            return Attempt.held();
        } catch (RuntimeException e) {
            try {
                JpaAccess.endTransaction(em);
            } catch (RuntimeException endFailed) {
                e.addSuppressed(endFailed);
            }
            throw e;
        }
    }

    @Override
    void renew(JpaGrant g, Duration lease) {
        EntityManager em = g.holder();
        synchronized (em) {
            if (!em.isOpen()) {
                throw new LockNotHeldException("lock " + g + " was released: its row lock ended with its transaction");
            }
            RowLock.renew(new JpaSession(em), g, lease);
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
                RowLock.release(new JpaSession(em), db.sql(), g);
            } finally {
                em.close();
            }
        }
    }

    @Override
    Optional<LockInfo> inspect(String name) {
        return db.inOwnTransaction(em -> JpaSession.unchecked(() -> RowLock.inspect(new JpaSession(em), db.sql(), name,
                db.readHeldRow(em, name).map(JpaStrategy::info))));
    }
}
