package io.txlock.it.jpa;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** An EJB that locks orders with the JPA provider and stores them as entities, in its container transactions. */
@Stateless
public class JpaOrders {

    @PersistenceContext(unitName = "orders")
    EntityManager entityManager;

    @Inject
    JpaStrategies strategies;

    /** Locks the order (AUTO scope: in this transaction) and persists it. */
    public long place(Strategy strategy, String orderNo) {
        LockHandle lock = strategies.get(strategy).acquire("order:" + orderNo);
        if (lock.scope() != LockScope.TRANSACTION) {
            throw new IllegalStateException("AUTO inside an EJB transaction should be TRANSACTION, was " + lock.scope());
        }
        entityManager.persist(new PlacedOrder(orderNo, lock.fencingToken()));
        return lock.fencingToken();
    }

    /** Locks and persists the order, then fails with a runtime exception: the container rolls back. */
    public void placeAndFail(Strategy strategy, String orderNo) {
        place(strategy, orderNo);
        throw new IllegalStateException("payment declined");
    }

    /** Locks and persists the order, says so, and commits only when allowed to. */
    public long placeAndWait(Strategy strategy, String orderNo, CountDownLatch locked, CountDownLatch mayCommit) {
        long token = place(strategy, orderNo);
        entityManager.flush();
        locked.countDown();
        try {
            if (!mayCommit.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not allowed to commit within 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return token;
    }

    /** Waits for the order's lock, then queries the order in the same transaction. */
    public Optional<Long> lockAndRead(Strategy strategy, String orderNo, Duration wait) {
        strategies.get(strategy).acquire("order:" + orderNo, LockOptions.defaults().withWait(wait));
        return tokens(orderNo).stream().findFirst();
    }

    /** @return the lock tokens of the order's rows */
    public List<Long> tokens(String orderNo) {
        return entityManager.createQuery("SELECT o.lockToken FROM PlacedOrder o WHERE o.orderNo = :no", Long.class)
                .setParameter("no", orderNo).getResultList();
    }

    /** @return whether the lock was granted within {@code wait}, in this transaction */
    public boolean tryLock(Strategy strategy, String name, Duration wait) {
        return strategies.get(strategy).tryAcquire(name, wait).isPresent();
    }

    /** Takes a LEASE lock inside this transaction and fails, so that the transaction rolls back. */
    public void leaseLockAndFail(LockManager locks, String name, LockHandle[] out) {
        out[0] = locks.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE));
        throw new IllegalStateException("roll back");
    }

    /** Releases a LEASE lock from inside a transaction. */
    public void release(LockHandle handle) {
        handle.release();
    }
}
