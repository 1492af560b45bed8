package io.txlock.spring.app;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockScope;
import io.txlock.cdi.Locked;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** {@link Locked} on a Spring bean, with and without a transaction. */
@Service
public class LockedJobs {

    /** A job's description, for a name template with a property. */
    public record Job(String name, int shard) {
    }

    private final LockManager locks;

    public LockedJobs(LockManager locks) {
        this.locks = locks;
    }

    @Locked(value = "job:{job.name}:{job.shard}", waitTime = "0")
    public String run(Job job, Runnable inside) {
        inside.run();
        return job.name();
    }

    /** @return the scope of the lock {@code @Locked} took, seen through a reentrant acquire */
    @Locked("tx-job:{0}")
    @Transactional
    public LockScope runInTransaction(String name, Runnable inside) {
        inside.run();
        try (LockHandle again = locks.acquire("tx-job:" + name)) {
            return again.scope();
        }
    }
}
