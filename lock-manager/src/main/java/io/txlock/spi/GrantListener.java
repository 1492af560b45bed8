package io.txlock.spi;

/**
 * How a provider tells the core that a grant changed without being asked: a session was suspended, came
 * back, or was lost. Each {@link LockRequest} carries its own listener; a provider keeps it with the grant.
 */
public interface GrantListener {

    /** The backend connection is in doubt; the holder must not rely on the lock until {@link #restored()}. */
    void suspended();

    /** The connection came back and the grant is known to be intact. */
    void restored();

    /**
     * The grant is gone (session expired, node deleted, key taken).
     *
     * @param reason what happened, for the holder's log
     */
    void lost(String reason);

    /** A listener that ignores everything. */
    GrantListener NONE = new GrantListener() {
        @Override
        public void suspended() {
        }

        @Override
        public void restored() {
        }

        @Override
        public void lost(String reason) {
        }
    };
}
