package io.txlock.testkit;

import io.txlock.spi.LockProvider;

/**
 * Builds a provider from a configuration string, so that a child JVM started by the contract kit can build
 * the same provider as the test that started it. Implementations need a public no-argument constructor and
 * must be on the test class path.
 */
public interface ProviderFactory {

    /**
     * @param config whatever the factory needs: a JDBC URL and strategy, a Redis address and key prefix…
     * @return a new provider; the caller closes it
     * @throws Exception if the backend cannot be reached
     */
    LockProvider create(String config) throws Exception;
}
