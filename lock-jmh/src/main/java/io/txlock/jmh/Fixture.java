package io.txlock.jmh;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.spi.Attempt;
import io.txlock.spi.GrantListener;
import io.txlock.spi.LockOwner;
import io.txlock.spi.LockProvider;
import io.txlock.spi.LockRequest;
import io.txlock.spi.TransactionSupport;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;

/** What every benchmark here works with: a manager over a {@link MemoryLockProvider}, and that provider's bare cycle. */
final class Fixture {

    /** LEASE scope, the default wait and lease (30 s), renewed: what lock-bench's {@code keys} and {@code handoff} use. */
    static final LockOptions OPTIONS = LockOptions.defaults().withScope(LockScope.LEASE);

    private Fixture() {
    }

    /** @return a manager over a new in-memory provider, with no transaction support to look for */
    static LockManager manager() {
        return LockManager.builder(new MemoryLockProvider()).transactions(TransactionSupport.none()).ownerHost("jmh")
                .defaults(OPTIONS).build();
    }

    /** @return a request of {@code name} as the core sends it for a LEASE lock of one thread */
    static LockRequest request(String name, int thread) {
        return new LockRequest(name, new LockOwner("jmh", "floor", "t" + thread), OPTIONS.lease(), Duration.ZERO, false,
                GrantListener.NONE);
    }

    /** @return the token of one acquire and release of {@code name} through txlock, for the blackhole */
    static long cycle(LockManager manager, String name) {
        try (LockHandle handle = manager.acquire(name)) {
            return handle.fencingToken();
        }
    }

    /** @return the hold count inside one lock and unlock of {@code lock}, for the blackhole */
    static int jucCycle(ReentrantLock lock) {
        lock.lock();
        try {
            return lock.getHoldCount();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The floor: the provider's own atomic steps, take and give back, with no core around them.
     *
     * @return the token, for the blackhole
     */
    static long bareCycle(LockProvider provider, LockRequest request) {
        Attempt attempt = provider.tryAcquire(request);
        if (!attempt.isGranted()) {
            throw new IllegalStateException("'" + request.name() + "' was held: the floor's names are its own");
        }
        provider.release(attempt.grant());
        return attempt.grant().fencingToken();
    }
}
