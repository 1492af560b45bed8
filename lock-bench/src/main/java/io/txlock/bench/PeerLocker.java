package io.txlock.bench;

import io.txlock.LockTimeoutException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;

/**
 * A peer's {@link Locker}: takes a name's lock from the peer's library within the run's wait, and lets go of the one
 * it holds. Not thread safe, as every locker.
 *
 * @param <L> the library's lock
 */
final class PeerLocker<L> implements Locker {

    /** Takes a name's lock. */
    @FunctionalInterface
    interface Acquire<L> {
        /**
         * @param name the lock name
         * @param wait how long to wait for it
         * @return the lock, held; null if it was not granted within {@code wait}
         * @throws Exception if the library failed
         */
        L tryLock(String name, Duration wait) throws Exception;
    }

    /** Lets go of a held lock. */
    @FunctionalInterface
    interface Release<L> {
        /**
         * @param lock the lock
         * @throws Exception if the library failed
         */
        void unlock(L lock) throws Exception;
    }

    private final Duration wait;
    private final Acquire<L> acquire;
    private final Release<L> release;
    private L held;

    PeerLocker(Duration wait, Acquire<L> acquire, Release<L> release) {
        this.wait = wait;
        this.acquire = acquire;
        this.release = release;
    }

    /**
     * @param locks a name's lock
     * @param wait how long {@link Lock#tryLock(long, TimeUnit)} waits
     * @return a locker over {@link Lock}s
     */
    static PeerLocker<Lock> overLocks(Function<String, ? extends Lock> locks, Duration wait) {
        return new PeerLocker<>(wait, (name, w) -> {
            Lock lock = locks.apply(name);
            return lock.tryLock(w.toMillis(), TimeUnit.MILLISECONDS) ? lock : null;
        }, Lock::unlock);
    }

    @Override
    public long lock(String name) throws Exception {
        L lock = acquire.tryLock(name, wait);
        if (lock == null) {
            throw new LockTimeoutException(name, wait);
        }
        held = lock;
        return CriticalSection.NO_TOKEN;
    }

    @Override
    public void unlock() throws Exception {
        L lock = held;
        held = null;
        release.unlock(lock);
    }
}
