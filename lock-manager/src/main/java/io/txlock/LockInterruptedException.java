package io.txlock;

/**
 * The waiting thread was interrupted before the lock was granted: thrown at once, also while the wait is blocked
 * in the backend (the wait is cancelled there). The thread's interrupt flag stays set, and the lock is not held.
 */
public class LockInterruptedException extends LockException {
    private static final long serialVersionUID = 1L;

    /**
     * @param lockName the lock that was waited for
     * @param cause the interruption
     */
    public LockInterruptedException(String lockName, InterruptedException cause) {
        super("interrupted while waiting for lock '" + lockName + "'", cause);
    }
}
