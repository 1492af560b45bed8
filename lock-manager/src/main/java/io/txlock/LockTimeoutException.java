package io.txlock;

import java.time.Duration;

/** The lock was not granted within the wait the caller allowed: another holder kept it. */
public class LockTimeoutException extends LockException {
    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final Duration waited;

    /**
     * @param lockName the lock that was not granted
     * @param waited how long the caller waited
     */
    public LockTimeoutException(String lockName, Duration waited) {
        super("lock '" + lockName + "' was not granted within " + waited + ": another holder kept it");
        this.lockName = lockName;
        this.waited = waited;
    }

    /** @return the lock that was not granted */
    public String lockName() {
        return lockName;
    }

    /** @return how long the caller waited */
    public Duration waited() {
        return waited;
    }
}
