package io.txlock;

/** How long a granted lock lasts. */
public enum LockScope {
    /**
     * Until the caller's transaction completes, on commit and on rollback. Asking for it outside a
     * transaction is an error. {@link LockHandle#release()} inside the transaction only counts down;
     * the lock itself is freed when the transaction ends.
     */
    TRANSACTION,
    /**
     * Until released, or until the lease runs out because the holder died. While the holder lives, the
     * lease is renewed in the background (unless {@link LockOptions#withAutoRenew(boolean) turned off});
     * renewal never changes the fencing token.
     */
    LEASE,
    /** {@link #TRANSACTION} when the calling thread has an active transaction, otherwise {@link #LEASE}. */
    AUTO
}
