package io.txlock.core;

import io.txlock.LockScope;
import io.txlock.spi.Grant;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** A grant held by one local owner, shared by all its reentrant handles. */
final class Holding {

    enum Status { HELD, SUSPENDED, RELEASING, RELEASED, LOST }

    final NameState state;
    final Caller caller;
    final Grant grant;
    final boolean renews;
    /** When the grant was made, on this JVM's clock. */
    final Instant since;
    /** Guarded by state.mutex. */
    int holds = 1;
    private Status status = Status.HELD;
    private String lostReason;
    private volatile Duration lease;
    private volatile long expiresAtNanos;
    private volatile Instant expiresAt;
    private LeaseTimers.Due timer;
    private final List<Runnable> lostListeners = new ArrayList<>();

    Holding(NameState state, Caller caller, Grant grant, Duration lease, boolean autoRenew, long startNanos, Instant wallStart) {
        this.state = state;
        this.caller = caller;
        this.grant = grant;
        this.renews = caller.scope() == LockScope.TRANSACTION || autoRenew;
        this.lease = lease;
        this.since = wallStart;
        if (limited()) {
            leaseFrom(startNanos, wallStart, lease);
        }
    }

    /**
     * @return whether the lease bounds this holding: the backend expires the grant unless renewed, or the owner
     *     turned renewal off, which makes the lease a hard limit even for a grant that lives with its session
     */
    boolean limited() {
        return grant.leased() || !renews;
    }

    LockScope scope() {
        return caller.scope();
    }

    Duration lease() {
        return lease;
    }

    void leaseFrom(long startNanos, Instant wallStart, Duration lease) {
        this.lease = lease;
        this.expiresAtNanos = startNanos + lease.toNanos();
        this.expiresAt = wallStart.plus(lease);
    }

    long expiresAtNanos() {
        return expiresAtNanos;
    }

    Instant expiresAt() {
        return limited() ? expiresAt : null;
    }

    synchronized Status status() {
        return status;
    }

    synchronized boolean isUsable() {
        return status == Status.HELD || status == Status.SUSPENDED;
    }

    synchronized String lostReason() {
        return lostReason;
    }

    /** Moves from HELD or SUSPENDED to {@code to}; true for the one caller that made the move. */
    synchronized boolean end(Status to, String reason) {
        if (status != Status.HELD && status != Status.SUSPENDED) {
            return false;
        }
        status = to;
        if (to == Status.LOST) {
            lostReason = reason;
        }
        cancelTimer();
        return true;
    }

    synchronized boolean finishRelease(Status to, String reason) {
        if (status != Status.RELEASING) {
            return false;
        }
        status = to;
        if (to == Status.LOST) {
            lostReason = reason;
        }
        return true;
    }

    synchronized void suspend() {
        if (status == Status.HELD) {
            status = Status.SUSPENDED;
        }
    }

    synchronized void restore() {
        if (status == Status.SUSPENDED) {
            status = Status.HELD;
        }
    }

    synchronized void setTimer(LeaseTimers.Due next) {
        cancelTimer();
        if (status == Status.HELD || status == Status.SUSPENDED) {
            timer = next;
        } else {
            next.cancel();
        }
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    /** @return true if the listener must run now because the lock is already lost */
    synchronized boolean addLostListener(Runnable listener) {
        if (status == Status.LOST) {
            return true;
        }
        lostListeners.add(listener);
        return false;
    }

    synchronized List<Runnable> takeLostListeners() {
        List<Runnable> all = List.copyOf(lostListeners);
        lostListeners.clear();
        return all;
    }

    @Override
    public String toString() {
        return "'" + state.name + "' token " + grant.fencingToken() + " held by " + caller.owner().id();
    }
}
