package io.txlock.it.app;

import io.txlock.LockManager;
import io.txlock.cdi.Locked;
import jakarta.ejb.Lock;
import jakarta.ejb.LockType;
import jakarta.ejb.Singleton;
import jakarta.inject.Inject;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A singleton EJB whose job must run on one node of the cluster at a time: the EJB's own lock only covers this
 * JVM, {@code @Locked} covers every node.
 */
@Singleton
@Lock(LockType.READ)
public class NightlyJob {

    @Inject
    LockManager locks;

    private final AtomicInteger runs = new AtomicInteger();

    /** @return the injected manager's instance id */
    public String managerId() {
        return locks.instanceId();
    }

    /** @return how many runs so far, this one included */
    @Locked("job:nightly")
    public int run() {
        if (locks.inspect("job:nightly").isEmpty()) {
            throw new IllegalStateException("the job runs without its lock");
        }
        return runs.incrementAndGet();
    }
}
