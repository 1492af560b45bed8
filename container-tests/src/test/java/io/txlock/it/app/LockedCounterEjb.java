package io.txlock.it.app;

import io.txlock.LockManager;
import io.txlock.cdi.Locked;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;

/** An EJB whose method is guarded by {@link Locked}, in its container-managed transaction. */
@Stateless
public class LockedCounterEjb {

    @Inject
    Counters counters;

    /** Held until the container commits. */
    @Locked("counter:{name}")
    public void increment(String name) {
        counters.increment(name);
    }

    /** The same on another node: the same lock name taken explicitly, on that node, until the container commits. */
    public void incrementOn(LockManager node, String name) {
        node.acquire("counter:" + name);
        counters.increment(name);
    }
}
