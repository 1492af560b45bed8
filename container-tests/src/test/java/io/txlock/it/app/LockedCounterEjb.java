package io.txlock.it.app;

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
}
