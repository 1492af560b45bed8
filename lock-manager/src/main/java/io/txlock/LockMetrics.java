package io.txlock;

import java.util.ArrayList;
import java.util.List;

/**
 * What the core reports about its locks, at the one place where it decides each outcome: give one to
 * {@code LockManager.Builder.metrics(LockMetrics)}. The core sees only this interface, so it runs without Micrometer on
 * the class path; {@code io.txlock.micrometer} holds the Micrometer meters ({@code MicrometerLockMetrics}) and
 * observations ({@code MicrometerLockObservations}), and {@link #none()} is the default, which does nothing and
 * allocates nothing.
 *
 * <p>The events that name the lock ({@link #acquireStarted}, {@link #holdingStarted(String, LockScope, long)},
 * {@link #releaseStarted}, {@link #holdingEnded(String, long, LockScope, long, String)}) are for implementations that
 * follow one acquire or one holding from start to end (observations, spans); by default they pass on to the events
 * without a name, which count and time.
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
    default void acquireEnded(LockScope scope, long startNanos, Acquire outcome) {
    }

    /**
     * Callers waiting in this manager's local queues (the contender talking to the backend included) changed.
     *
     * @param delta +1 when a caller queued, -1 when it left the queue (granted, or gave up)
     */
    default void waiting(int delta) {
    }

    /** A holding started: a local owner holds a lock, however many times it re-enters it. */
    default void holdingStarted() {
    }

    /**
     * A holding ended: released, ended with its transaction, or lost.
     *
     * @param scope its scope
     * @param grantedNanos {@link System#nanoTime()} when it was granted
     */
    default void holdingEnded(LockScope scope, long grantedNanos) {
    }

    /**
     * A lock was lost while held; {@link #holdingEnded} reports its end too.
     *
     * @param reason why
     */
    default void lost(Lost reason) {
    }

    /**
     * A renewal sent to the backend was answered.
     *
     * @param outcome how
     */
    default void renewal(Renewal outcome) {
    }

    /**
     * An acquire started: the caller asked for the lock.
     *
     * @param name the lock name
     * @param scope the scope it is asked in: {@code TRANSACTION} or {@code LEASE}
     * @return where the core reports this acquire's end ({@link #acquireEnded}): this, by default
     */
    default LockMetrics acquireStarted(String name, LockScope scope) {
        return this;
    }

    /**
     * A holding started; by default {@link #holdingStarted()}.
     *
     * @param name the lock name
     * @param scope its scope
     * @param fencingToken its grant's token
     */
    default void holdingStarted(String name, LockScope scope, long fencingToken) {
        holdingStarted();
    }

    /**
     * The owner's last release of a LEASE-scoped holding is being sent to the backend; {@link #holdingEnded(String, long,
     * LockScope, long, String)} follows once it was answered.
     *
     * @param name the lock name
     * @param fencingToken its grant's token
     */
    default void releaseStarted(String name, long fencingToken) {
    }

    /**
     * A holding ended; by default {@link #holdingEnded(LockScope, long)}.
     *
     * @param name the lock name
     * @param fencingToken its grant's token
     * @param scope its scope
     * @param grantedNanos {@link System#nanoTime()} when it was granted
     * @param lostReason why it was lost, or null if it was released or ended with its transaction
     */
    default void holdingEnded(String name, long fencingToken, LockScope scope, long grantedNanos, String lostReason) {
        holdingEnded(scope, grantedNanos);
    }

    /**
     * @param all where to report
     * @return metrics that report every event to each of {@code all}, in order
     */
    static LockMetrics all(LockMetrics... all) {
        List<LockMetrics> each = new ArrayList<>();
        for (LockMetrics metrics : all) {
            if (metrics == null) {
                throw new IllegalArgumentException("metrics must not be null: use LockMetrics.none()");
            }
            if (metrics instanceof All several) {
                each.addAll(several.each);
            } else if (metrics != None.INSTANCE) {
                each.add(metrics);
            }
        }
        return each.isEmpty() ? none() : each.size() == 1 ? each.get(0) : new All(List.copyOf(each));
    }

    /** Several metrics at once; see {@link #all}. */
    final class All implements LockMetrics {
        private final List<LockMetrics> each;

        private All(List<LockMetrics> each) {
            this.each = each;
        }

        @Override
        public LockMetrics acquireStarted(String name, LockScope scope) {
            List<LockMetrics> started = new ArrayList<>(each.size());
            boolean same = true;
            for (LockMetrics metrics : each) {
                LockMetrics one = metrics.acquireStarted(name, scope);
                started.add(one);
                same &= one == metrics;
            }
            return same ? this : new All(started);
        }

        @Override
        public void acquireEnded(LockScope scope, long startNanos, Acquire outcome) {
            each.forEach(m -> m.acquireEnded(scope, startNanos, outcome));
        }

        @Override
        public void waiting(int delta) {
            each.forEach(m -> m.waiting(delta));
        }

        @Override
        public void holdingStarted() {
            each.forEach(LockMetrics::holdingStarted);
        }

        @Override
        public void holdingStarted(String name, LockScope scope, long fencingToken) {
            each.forEach(m -> m.holdingStarted(name, scope, fencingToken));
        }

        @Override
        public void releaseStarted(String name, long fencingToken) {
            each.forEach(m -> m.releaseStarted(name, fencingToken));
        }

        @Override
        public void holdingEnded(LockScope scope, long grantedNanos) {
            each.forEach(m -> m.holdingEnded(scope, grantedNanos));
        }

        @Override
        public void holdingEnded(String name, long fencingToken, LockScope scope, long grantedNanos, String lostReason) {
            each.forEach(m -> m.holdingEnded(name, fencingToken, scope, grantedNanos, lostReason));
        }

        @Override
        public void lost(Lost reason) {
            each.forEach(m -> m.lost(reason));
        }

        @Override
        public void renewal(Renewal outcome) {
            each.forEach(m -> m.renewal(outcome));
        }

        @Override
        public String toString() {
            return each.toString();
        }
    }

    /** The default: no metrics, no cost. */
    enum None implements LockMetrics {
        /** The one instance. */
        INSTANCE;
    }
}
