package io.txlock.bench;

/**
 * The raw floor: the same backend's own lock, without txlock, measured in the same run so that txlock's
 * figures can be read as a ratio of it.
 */
public interface RawLocks extends AutoCloseable {

    /** @return what one raw lock/unlock cycle does, e.g. "SELECT … FOR UPDATE + COMMIT" */
    String describeCycle();

    /** @return what a raw contended handoff does, e.g. "blocked SELECT … FOR UPDATE woken by COMMIT" */
    String describeHandoff();

    /**
     * @return whether the handoff scenario also measures {@link #cycleSession()} as its "safe floor": where the
     *     backend's blocking handoff ({@link #blockingSession()}) is no safe lock (no lease, no fencing), the least a
     *     safe lock costs without txlock's queue; false by default
     */
    default boolean safeHandoffFloor() {
        return false;
    }

    /**
     * Makes sure the names can be locked (for a row lock: their rows exist).
     *
     * @param names the lock names a run will use
     * @throws Exception if the backend failed
     */
    void prepare(java.util.Collection<String> names) throws Exception;

    /**
     * @return a session doing the backend's bare equivalent of the strategy's lock and unlock (for a
     *     non-blocking strategy, a retry after 1 ms when taken)
     * @throws Exception if the backend failed
     */
    Session cycleSession() throws Exception;

    /**
     * @return a session whose lock waits in the backend itself and is woken by the holder's unlock: the
     *     backend's own handoff
     * @throws Exception if the backend failed
     */
    Session blockingSession() throws Exception;

    @Override
    void close();

    /** One worker's raw lock; not thread safe. */
    interface Session extends AutoCloseable {
        /**
         * @param name the lock name
         * @throws Exception if the backend failed
         */
        void lock(String name) throws Exception;

        /**
         * Lets go of the lock taken last.
         *
         * @throws Exception if the backend failed
         */
        void unlock() throws Exception;

        /** Gives the session's connection back; a failure is reported as {@link io.txlock.LockBackendException}. */
        @Override
        void close();
    }
}
