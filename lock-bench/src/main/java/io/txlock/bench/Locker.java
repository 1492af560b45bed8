package io.txlock.bench;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;

/** One worker's way to lock: through txlock, or the backend's raw lock for the floor. Not thread safe. */
interface Locker extends AutoCloseable {

    /**
     * @param name the lock name
     * @return the fencing token, or {@link CriticalSection#NO_TOKEN}
     * @throws Exception if not granted
     */
    long lock(String name) throws Exception;

    /**
     * Lets go of the lock taken last.
     *
     * @throws Exception if that failed
     */
    void unlock() throws Exception;

    /** Frees what the locker holds (a raw session's connection); a failure is a {@link io.txlock.LockBackendException}. */
    @Override
    default void close() {
    }

    /**
     * @param locks a node's lock manager
     * @param workload the wait and lease to use
     * @return a locker taking LEASE-scoped locks through txlock
     */
    static Locker txlock(LockManager locks, LockWorkload workload) {
        LockOptions options = LockOptions.defaults().withScope(LockScope.LEASE).withWait(workload.waitTime()).withLease(workload.lease());
        return new Locker() {
            private LockHandle held;

            @Override
            public long lock(String name) {
                held = locks.acquire(name, options);
                return held.fencingToken();
            }

            @Override
            public void unlock() {
                LockHandle h = held;
                held = null;
                h.release();
            }
        };
    }

    /**
     * @param session a raw backend session
     * @return a locker over it, without tokens
     */
    static Locker raw(RawLocks.Session session) {
        return new Locker() {
            @Override
            public long lock(String name) throws Exception {
                session.lock(name);
                return CriticalSection.NO_TOKEN;
            }

            @Override
            public void unlock() throws Exception {
                session.unlock();
            }

            @Override
            public void close() {
                session.close();
            }
        };
    }
}
