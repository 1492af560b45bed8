package io.txlock;

/**
 * The waiting thread was interrupted before the lock was granted. The thread's interrupt flag is set
 * again, and the lock is not held.
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
