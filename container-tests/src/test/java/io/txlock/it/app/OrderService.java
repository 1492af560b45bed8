package io.txlock.it.app;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** An EJB that locks orders inside its container-managed transactions. */
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

    /** Locks the order (AUTO scope: in this transaction) and stores it. */
    public long place(Strategy strategy, String orderNo) {
        LockHandle lock = strategies.get(strategy).acquire("order:" + orderNo);
        if (lock.scope() != LockScope.TRANSACTION) {
            throw new IllegalStateException("AUTO inside an EJB transaction should be TRANSACTION, was " + lock.scope());
        }
        orders.insert(orderNo, lock.fencingToken());
        return lock.fencingToken();
    }

    /** Locks and stores the order, then fails with a runtime exception: the container rolls back. */
    public void placeAndFail(Strategy strategy, String orderNo) {
        place(strategy, orderNo);
        throw new IllegalStateException("payment declined");
    }

    /** Locks and stores the order, says so, and commits only when allowed to. */
    public long placeAndWait(Strategy strategy, String orderNo, CountDownLatch locked, CountDownLatch mayCommit) {
        long token = place(strategy, orderNo);
        locked.countDown();
        await(mayCommit);
        return token;
    }

    /** Waits for the order's lock, then reads the order in the same transaction. */
    public Optional<Long> lockAndRead(Strategy strategy, String orderNo, Duration wait) {
        strategies.get(strategy).acquire("order:" + orderNo, LockOptions.defaults().withWait(wait));
        return orders.token(orderNo);
    }

    /** @return whether the lock was granted within {@code wait}, in this transaction */
    public boolean tryLock(Strategy strategy, String name, Duration wait) {
        return strategies.get(strategy).tryAcquire(name, wait).isPresent();
    }

    /** Takes a LEASE lock inside this transaction and fails, so that the transaction rolls back. */
    public void leaseLockAndFail(Strategy strategy, String name, LockHandle[] out) {
        out[0] = strategies.get(strategy).acquire(name, LockOptions.defaults().withScope(LockScope.LEASE));
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
}
