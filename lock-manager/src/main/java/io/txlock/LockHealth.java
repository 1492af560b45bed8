package io.txlock;

/**
 * What a health check of one {@link LockManager} found: whether its backend answered, and how the manager fares.
 * Every integration (Spring Boot Actuator, MicroProfile Health, a resource adapter, a plain endpoint) reports the
 * same.
 *
 * @param backendReachable whether the backend answered a read just now
 * @param problem the backend's error (its exception, with its class) if it did not answer, else null
 * @param held locks this manager holds now
 * @param waiting callers of this manager waiting for a lock now
 * @param renewalFailures lease renewals that failed or were refused since the manager started
 * @param lost locks this manager lost while held since it started
 */
public record LockHealth(boolean backendReachable, String problem, int held, int waiting, long renewalFailures, long lost) {

    /** @return whether the backend answered: the manager can grant locks */
    public boolean isUp() {
        return backendReachable;
    }
}
