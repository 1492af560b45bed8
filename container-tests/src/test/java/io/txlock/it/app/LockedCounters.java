package io.txlock.it.app;

import io.txlock.LockScope;
import io.txlock.cdi.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

/** A CDI bean whose methods are guarded by {@link Locked}, with and without a transaction. */
@ApplicationScoped
public class LockedCounters {

    @Inject
    Counters counters;

    /** In a transaction: the lock is held until it commits. */
    @Transactional
    @Locked("counter:{0}")
    public void incrementInTransaction(String name) {
        counters.increment(name);
    }

    /** Without a transaction: a LEASE lock released when the method returns. */
    @Locked(value = "counter:{name}", scope = LockScope.LEASE)
    public void incrementWithoutTransaction(String name) {
        counters.increment(name);
    }

    /** Gives up after a short wait. */
    @Locked(value = "counter:{name}", waitTime = "300ms")
    public void incrementOrGiveUp(String name) {
        counters.increment(name);
    }

    /** Locks on a property of its argument. */
    @Locked("order:{order.number}")
    public String ship(Shipment order) {
        return order.number();
    }

    /** An order to ship. */
    public record Shipment(String number) {
    }
}
