/**
 * txlock as a Jakarta Connectors resource adapter: {@link io.txlock.adapter.LockConnectionFactory} is what applications
 * look up ({@code @Resource(lookup = "java:/txlock/locks")}), {@link io.txlock.adapter.LockConnection} the
 * {@link io.txlock.LockManager} API they lock with. The lock manager's threads come from the container's
 * {@code WorkManager} and timer; a lock taken inside a JTA transaction ends with it, and a transaction whose lock was
 * lost before it completed rolls back with an exception naming the lock.
 */
package io.txlock.adapter;
