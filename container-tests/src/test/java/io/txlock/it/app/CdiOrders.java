package io.txlock.it.app;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockScope;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

/** A CDI bean that locks orders inside {@code @Transactional} methods. */
@ApplicationScoped
public class CdiOrders {

    @Inject
    LockManager locks;

    @Inject
    Orders orders;

    /** @return the injected manager's instance id */
    public String managerId() {
        return locks.instanceId();
    }

    /** Locks and stores the order in this transaction. */
    @Transactional
    public long place(String orderNo) {
        LockHandle lock = locks.acquire("order:" + orderNo);
        if (lock.scope() != LockScope.TRANSACTION) {
            throw new IllegalStateException("AUTO inside @Transactional should be TRANSACTION, was " + lock.scope());
        }
        orders.insert(orderNo, lock.fencingToken());
        return lock.fencingToken();
    }

    /** Locks and stores the order, then fails: @Transactional rolls back on runtime exceptions. */
    @Transactional
    public void placeAndFail(String orderNo) {
        place(orderNo);
        throw new IllegalStateException("payment declined");
    }
}
