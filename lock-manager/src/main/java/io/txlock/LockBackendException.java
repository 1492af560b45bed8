package io.txlock;

/**
 * The backend (database, Redis, ZooKeeper) failed or could not be reached. This never means "not
 * granted": whether the lock is held is unknown, so the caller must not proceed as if it held it.
 */
public class LockBackendException extends LockException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message which operation failed on which backend
     * @param cause the backend's own error
     */
    public LockBackendException(String message, Throwable cause) {
        super(message, cause);
    }
}
