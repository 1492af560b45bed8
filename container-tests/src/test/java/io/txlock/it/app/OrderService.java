package io.txlock.it.app;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An EJB that locks orders inside its container-managed transactions, on the node (the {@link LockManager}) its
 * caller names.
 */
@Stateless
public class OrderService {

    @Inject
    LockManager locks;

    @Inject
    Strategies strategies;

    @Inject
    Orders orders;

    /** @return the injected manager's instance id */
    public String managerId() {
        return locks.instanceId();
    }

    /** Locks the order on {@code node} (AUTO scope: in this transaction) and stores it. */
    public long place(LockManager node, String orderNo) {
        LockHandle lock = node.acquire("order:" + orderNo);
        if (lock.scope() != LockScope.TRANSACTION) {
            throw new IllegalStateException("AUTO inside an EJB transaction should be TRANSACTION, was " + lock.scope());
        }
        orders.insert(orderNo, lock.fencingToken());
        return lock.fencingToken();
    }

    /** Locks and stores the order, then fails with a runtime exception: the container rolls back. */
    public void placeAndFail(LockManager node, String orderNo) {
        place(node, orderNo);
        throw new IllegalStateException("payment declined");
    }

    /** Locks and stores the order, says so, and commits only when allowed to. */
    public long placeAndWait(LockManager node, String orderNo, CountDownLatch locked, CountDownLatch mayEnd) {
        long token = place(node, orderNo);
        locked.countDown();
        await(mayEnd);
        return token;
    }

    /** Locks and stores the order, says so, and when allowed to end, fails: the container rolls back. */
    public void placeWaitAndFail(LockManager node, String orderNo, CountDownLatch locked, CountDownLatch mayEnd) {
        placeAndWait(node, orderNo, locked, mayEnd);
        throw new IllegalStateException("payment declined");
    }

    /** Waits for the order's lock on {@code node}, then reads the order in the same transaction. */
    public Read lockAndRead(LockManager node, String orderNo, Duration wait) {
        LockHandle lock = node.acquire("order:" + orderNo, LockOptions.defaults().withWait(wait));
        return new Read(lock.fencingToken(), orders.token(orderNo));
    }

    /** @return whether the lock was granted on {@code node} within {@code wait}, in this transaction */
    public boolean tryLock(LockManager node, String name, Duration wait) {
        return node.tryAcquire(name, wait).isPresent();
    }

    /**
     * Stores {@code orderNo + "/before"}, tries the lock, stores {@code orderNo + "/after"}: all in this transaction,
     * which commits whether the lock was granted or not.
     *
     * @return whether the lock was granted within {@code wait}
     */
    public boolean storeAroundTryLock(LockManager node, String name, Duration wait, String orderNo) {
        orders.insert(orderNo + "/before", 1);
        boolean granted = node.tryAcquire(name, wait).isPresent();
        orders.insert(orderNo + "/after", 2);
        return granted;
    }

    /** Takes a LEASE lock on {@code node} inside this transaction and fails, so that the transaction rolls back. */
    public void leaseLockAndFail(LockManager node, String name, LockHandle[] out) {
        out[0] = node.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE));
        throw new IllegalStateException("roll back");
    }

    /** Asks the manager without a lease datasource for a LEASE lock inside this transaction. */
    public LockHandle leaseLockWithJtaDataSourceOnly(String name) {
        return strategies.jtaOnly().acquire(name, LockOptions.defaults().withScope(LockScope.LEASE));
    }

    /** Releases a LEASE lock from inside a transaction. */
    public void release(LockHandle handle) {
        handle.release();
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not released within 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * What a transaction saw once its lock was granted.
     *
     * @param lockToken the fencing token of its lock
     * @param orderToken the lock token the order was stored under, if it was stored
     */
    public record Read(long lockToken, Optional<Long> orderToken) {
    }
}
