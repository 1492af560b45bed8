package io.txlock.testkit;

import io.txlock.spi.LockProvider;

/**
 * The contract every provider x strategy x backend passes. Extend it, say how to build the provider here
 * and in a child JVM, and say how it behaves where providers legitimately differ.
 */
public abstract class LockContractTest {

    /** @return a new provider on the backend under test; the kit closes it (via its LockManager) */
    protected abstract LockProvider newProvider();

    /** @return how a child JVM builds a provider on the same backend and namespace as {@link #newProvider()} */
    protected abstract ProviderRecipe recipe();

    /**
     * @return a provider configured for a backend that cannot be reached (a closed port, a stopped server),
     *     with short connect timeouts: every lock operation on it must fail with {@code LockBackendException}
     */
    protected abstract LockProvider newUnreachableProvider();

    /**
     * How long after a holder's JVM is killed ({@code kill -9}) its LEASE-scoped lock becomes free. The backend
     * expires a leased grant after the lease; a grant that lives with a session (a row lock held by an open
     * transaction, a ZooKeeper ephemeral node) ends when the backend notices the session died.
     *
     * @param lease the lease the dead holder asked for
     * @return the longest time the kit waits for the lock after the kill (the kit adds slack for a loaded machine)
     */
    protected java.time.Duration releaseAfterHolderDeath(java.time.Duration lease) {
        return lease;
    }
}
