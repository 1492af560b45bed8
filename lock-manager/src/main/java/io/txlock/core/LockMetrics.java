package io.txlock.core;

import io.txlock.LockScope;

/**
 * What the core reports about its locks, at the one place where it decides each outcome. Internal: not an API;
 * users turn metrics on with {@code LockManager.Builder.metrics(MeterRegistry)}. The core sees only this
 * interface, so it runs without Micrometer on the class path; {@link MicrometerLockMetrics} is the one class that
 * uses Micrometer, and {@link #none()} the default, which does nothing and allocates nothing.
 *
 * <p>Implementations are called on the lock's hot path, sometimes under a name's mutex: every method must be
 * quick, must not block and must not throw.
 */
public interface LockMetrics {

    /** How an acquire ended. */
    enum Acquire {
        /** Granted by the backend. */
        GRANTED,
        /** Granted at once because the caller already held the lock (reentry). */
        REENTERED,
        /** Not granted within the caller's wait. */
        TIMEOUT,
        /** The backend failed, the grant could not be bound, or the manager closed. */
        FAILED,
        /** The waiting thread was interrupted. */
        INTERRUPTED,
        /** The caller cancelled an {@code acquireAsync} future. */
        CANCELLED
    }

    /** Why a lock was lost while held. */
    enum Lost {
        /** The lease ran out on this JVM's clock before a renewal was confirmed (or with auto-renew off). */
        LEASE_EXPIRED,
        /** The backend refused a renewal: the grant was gone. */
        RENEWAL_REFUSED,
        /** Renewals failed (backend unreachable) until the lease ran out. */
        BACKEND_UNREACHABLE,
        /** The provider reported the grant gone: session expired, connection died, node deleted, key taken. */
        BACKEND_REPORTED,
        /** The backend refused the release: the grant had gone while the owner still held it. */
        RELEASE_REFUSED
    }

    /** How a renewal (background, {@code extend}, or after a late grant) ended. */
    enum Renewal {
        /** The backend renewed the grant. */
        OK,
        /** The backend answered that the grant is no longer held. */
        REFUSED,
        /** The backend failed or could not be reached. */
        FAILED
    }

    /** @return metrics that record nothing */
    static LockMetrics none() {
        return None.INSTANCE;
    }

    /**
     * An acquire ended.
     *
     * @param scope the scope it was (or would have been) granted in: {@code TRANSACTION} or {@code LEASE}
     * @param startNanos {@link System#nanoTime()} when the call came
     * @param outcome how it ended
     */
    void acquireEnded(LockScope scope, long startNanos, Acquire outcome);

    /**
     * Callers waiting in this manager's local queues (the contender talking to the backend included) changed.
     *
     * @param delta +1 when a caller queued, -1 when it left the queue (granted, or gave up)
     */
    void waiting(int delta);

    /** A holding started: a local owner holds a lock, however many times it re-enters it. */
    void holdingStarted();

    /**
     * A holding ended: released, ended with its transaction, or lost.
     *
     * @param scope its scope
     * @param grantedNanos {@link System#nanoTime()} when it was granted
     */
    void holdingEnded(LockScope scope, long grantedNanos);

    /**
     * A lock was lost while held; {@link #holdingEnded} reports its end too.
     *
     * @param reason why
     */
    void lost(Lost reason);

    /**
     * A renewal sent to the backend was answered.
     *
     * @param outcome how
     */
    void renewal(Renewal outcome);

    /** The default: no metrics, no cost. */
    enum None implements LockMetrics {
        /** The one instance. */
        INSTANCE;

        @Override
        public void acquireEnded(LockScope scope, long startNanos, Acquire outcome) {
        }

        @Override
        public void waiting(int delta) {
        }

        @Override
        public void holdingStarted() {
        }

        @Override
        public void holdingEnded(LockScope scope, long grantedNanos) {
        }

        @Override
        public void lost(Lost reason) {
        }

        @Override
        public void renewal(Renewal outcome) {
        }
    }
}
