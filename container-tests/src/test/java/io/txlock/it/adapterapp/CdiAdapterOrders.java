package io.txlock.it.adapterapp;

import io.txlock.LockHandle;
import io.txlock.adapter.LockConnection;
import io.txlock.adapter.LockConnectionFactory;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.resource.ResourceException;
import jakarta.transaction.Transactional;

/** A CDI bean that locks through the adapter in {@code @Transactional} methods. */
@ApplicationScoped
public class CdiAdapterOrders {

    @Resource(lookup = "java:/txlock/locks")
    LockConnectionFactory locks;

    @Inject
    OrderRows rows;

    /** @return the lock manager's instance id behind the connection factory */
    public String managerId() throws ResourceException {
        try (LockConnection connection = locks.getConnection()) {
            return connection.instanceId();
        }
    }

    /** Locks and stores the order in this transaction. */
    @Transactional
    public long place(String orderNo) throws ResourceException {
        try (LockConnection connection = locks.getConnection()) {
            LockHandle lock = connection.acquire("order:" + orderNo);
            rows.insert(orderNo, lock.fencingToken());
            return lock.fencingToken();
        }
    }

    /** Locks and stores the order, then fails: the transaction rolls back. */
    @Transactional
    public void placeAndFail(String orderNo) throws ResourceException {
        place(orderNo);
        throw new IllegalStateException("payment declined");
    }
}
