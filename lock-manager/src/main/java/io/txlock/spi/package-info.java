/**
 * What a backend implements to plug into txlock: one atomic attempt, renew, release and inspect, plus an
 * optional wake-up hint. Reentry, waiting, fairness within a JVM, transaction binding, lease renewal and
 * loss detection are done once by the core for every provider; a provider never re-implements them.
 *
 * <p>Providers prove themselves by extending the contract test kit ({@code io.txlock.testkit.LockContractTest}
 * in the {@code txlock-lock-manager} test-jar).
 */
package io.txlock.spi;
