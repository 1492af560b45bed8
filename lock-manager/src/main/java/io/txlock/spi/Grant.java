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
     * @return {@code true} if the core keeps a lease on this grant: it calls {@link LockProvider#renew} every third
     *     of the lease while the holder lives, and with auto-renew off ends the grant when the lease runs out. The
     *     backend may expire it by itself too (a Redis key, a row's {@code expires_at}) or not (a row lock held
     *     by an open transaction, whose renew only checks the connection). {@code false} if the grant simply
     *     lasts as long as the transaction or session it lives in (a ZooKeeper ephemeral node): the core never
     *     renews it, except that an owner who turned auto-renew off still gets the lease as a hard limit (the core
     *     ends the grant when it runs out, and {@code extend} calls {@link LockProvider#renew} to check it is held)
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

    /**
     * Whether this JVM knows that the backend still keeps the grant at {@code nanoTime}, as far as the provider can
     * tell without asking it. A grant that lives with a session the backend expires by itself (a ZooKeeper session)
     * is known in force only until the session timeout, counted from the last time the backend was heard from, has
     * run out: a holder paused longer (a GC, {@code SIGSTOP}) may have lost it without having been told yet. The
     * core asks on every {@code isValid()}; a grant not known in force is treated as suspended there (not valid,
     * not lost). Must be quick and must not block: no backend call.
     *
     * @param nanoTime a {@link System#nanoTime()} reading
     * @return {@code true} (the default) unless the backend may have ended the grant by then unbeknown to this JVM
     */
    default boolean knownInForceAt(long nanoTime) {
        return true;
    }
}
