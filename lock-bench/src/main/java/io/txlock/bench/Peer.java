package io.txlock.bench;

import java.time.Duration;
import java.util.function.IntFunction;

/**
 * What a user would pick instead of txlock on a backend (ShedLock, Spring Integration's {@code JdbcLockRegistry},
 * Redisson, Curator), measured in the same run as a yardstick beside the raw floor. A peer is driven as its own
 * documentation shows; one that cannot wait for a lock is retried after {@link #RETRY}, the floor's own retry.
 */
interface Peer {

    /** How long a peer that cannot wait sleeps before it tries again: the same 1 ms as the floor's bare cycles. */
    Duration RETRY = Duration.ofMillis(1);

    /** @return the way's name in the report, e.g. "ShedLock" */
    String name();

    /** @return what one lock + unlock does and how a wait is done, for the report */
    String describe();

    /**
     * Opens a simulated cluster of application nodes for one run, each with its own client, lock provider or
     * registry, as separate JVMs would have.
     *
     * @param nodes how many nodes; workers are spread over them round-robin
     * @param workload the lease and wait of the run
     * @return the nodes; close them after the run
     * @throws Exception if the backend cannot be reached
     */
    Nodes open(int nodes, LockWorkload workload) throws Exception;

    /** The nodes of one run. */
    interface Nodes extends AutoCloseable {
        /**
         * @param worker a worker number
         * @return that worker's locker, on node {@code worker % nodes}; used by one thread only
         * @throws Exception if the backend cannot be reached
         */
        Locker locker(int worker) throws Exception;

        @Override
        void close();

        /**
         * @param lockers a worker's locker
         * @param close frees the nodes' clients
         * @return nodes of those lockers
         */
        static Nodes of(IntFunction<Locker> lockers, Runnable close) {
            return new Nodes() {
                @Override
                public Locker locker(int worker) {
                    return lockers.apply(worker);
                }

                @Override
                public void close() {
                    close.run();
                }
            };
        }
    }
}
