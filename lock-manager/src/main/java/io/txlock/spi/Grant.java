package io.txlock.spi;

/**
 * A lock a provider granted. Providers return their own implementation, carrying whatever they need to
 * renew and release it (a connection, a node path); the core hands the same object back.
 */
public interface Grant {

    /** @return the lock name */
    String name();

    /** @return the fencing token: greater than that of every earlier grant of this name */
    long fencingToken();

    /**
     * @return {@code true} if the grant runs out after the request's lease unless the core renews it;
     *     {@code false} if it lasts as long as the backend session or transaction it lives in
     */
    boolean leased();

    /**
     * @return {@code true} if the grant joined the caller's transaction and ends with it (the backend undoes it
     *     on rollback and frees it at commit after {@link LockProvider#beforeCompletion(Grant)}); the core then
     *     never calls {@link LockProvider#release(Grant)} for it
     */
    default boolean endsWithTransaction() {
        return false;
    }
}
