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
     * @return {@code true} if a grant lasts as long as the holder's session or connection lives, whatever the
     *     lease (SELECT_FOR_UPDATE row locks, ZooKeeper ephemeral nodes): then only the holder's death or the
     *     core's own lease timer ends it; {@code false} if the backend itself expires it after the lease
     */
    protected boolean grantLivesWithSession() {
        return false;
    }
}
