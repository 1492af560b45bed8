package io.txlock.it.jpa;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import jakarta.ejb.Stateless;
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

    /** Locks the order on {@code node} (AUTO scope: in this transaction) and persists it. */
    public long place(LockManager node, String orderNo) {
        LockHandle lock = node.acquire("order:" + orderNo);
        if (lock.scope() != LockScope.TRANSACTION) {
            throw new IllegalStateException("AUTO inside an EJB transaction should be TRANSACTION, was " + lock.scope());
        }
        entityManager.persist(new PlacedOrder(orderNo, lock.fencingToken()));
        return lock.fencingToken();
    }

    /** Locks and persists the order, then fails with a runtime exception: the container rolls back. */
    public void placeAndFail(LockManager node, String orderNo) {
        place(node, orderNo);
        throw new IllegalStateException("payment declined");
    }

    /** Locks and persists the order, says so, and commits only when allowed to. */
    public long placeAndWait(LockManager node, String orderNo, CountDownLatch locked, CountDownLatch mayCommit) {
        long token = place(node, orderNo);
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

    /** Waits for the order's lock on {@code node}, then queries the order in the same transaction. */
    public Optional<Long> lockAndRead(LockManager node, String orderNo, Duration wait) {
        node.acquire("order:" + orderNo, LockOptions.defaults().withWait(wait));
        return tokens(orderNo).stream().findFirst();
    }

    /** @return the lock tokens of the order's rows */
    public List<Long> tokens(String orderNo) {
        return entityManager.createQuery("SELECT o.lockToken FROM PlacedOrder o WHERE o.orderNo = :no", Long.class)
                .setParameter("no", orderNo).getResultList();
    }

    /** @return whether the lock was granted on {@code node} within {@code wait}, in this transaction */
    public boolean tryLock(LockManager node, String name, Duration wait) {
        return node.tryAcquire(name, wait).isPresent();
    }

    /** Takes a LEASE lock inside this transaction and fails, so that the transaction rolls back. */
    public void leaseLockAndFail(LockManager node, String name, LockHandle[] out) {
        out[0] = node.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE));
        throw new IllegalStateException("roll back");
    }

    /** Releases a LEASE lock from inside a transaction. */
    public void release(LockHandle handle) {
        handle.release();
    }
}
