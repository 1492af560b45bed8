package io.txlock.core;

import io.txlock.LockScope;
import io.txlock.spi.Grant;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A grant held by one local owner, shared by all its reentrant handles. Its status, loss reason and loss listeners
 * are guarded by this holding's monitor, its hold count by its name's mutex, its lease by the {@link Lease}.
 */
final class Holding implements Runnable {

    enum Status { HELD, SUSPENDED, RELEASING, RELEASED, LOST }

    final LocalName state;
    final Caller caller;
    final Grant grant;
    /** When the grant was made, on this JVM's clock. */
    final Instant since;
    /** When the grant was handed to this holding (System.nanoTime), for how long it was held. */
    final long grantedNanos = System.nanoTime();
    final Lease lease;
    private final LeaseKeeper keeper;
    /** Guarded by state.mutex. */
    int holds = 1;
    private Status status = Status.HELD;
    private String lostReason;
    /** Made when the first listener comes: most holdings have none. */
    private List<Runnable> lostListeners;

    Holding(LocalName state, Caller caller, Grant grant, Duration lease, boolean autoRenew, long startNanos, Instant wallStart,
            LeaseKeeper keeper) {
        this.state = state;
        this.keeper = keeper;
        this.caller = caller;
        this.grant = grant;
        this.since = wallStart;
        this.lease = new Lease(grant.leased(), caller.scope() == LockScope.TRANSACTION || autoRenew, lease, startNanos,
                wallStart);
    }

    /** The work of this holding's lease timer ({@link LeaseKeeper#leaseWork}): the holding is its own timer task. */
    @Override
    public void run() {
        keeper.leaseWork(this);
    }

    LockScope scope() {
        return caller.scope();
    }

    Instant expiresAt() {
        return lease.expiresAt();
    }

    synchronized Status status() {
        return status;
    }

    /** @return HELD or SUSPENDED, whether or not its lease ran out: not yet ended by a release or a loss */
    synchronized boolean isLive() {
        return status == Status.HELD || status == Status.SUSPENDED;
    }

    /** @return live, and within its lease: its owner may use it (re-enter it, extend it, be shown as its holder) */
    synchronized boolean isUsable() {
        return isLive() && !lease.overAt(System.nanoTime());
    }

    /**
     * @return HELD (not SUSPENDED), within its lease, and {@link Grant#knownInForceAt known in force} by the provider:
     *     the owner can rely on the lock now. Once this saw the lease over, no late renewal makes it true
     *     again ({@link Lease#renewed}).
     */
    synchronized boolean isValid() {
        long now = System.nanoTime();
        return status == Status.HELD && !lease.overAt(now) && grant.knownInForceAt(now);
    }

    /** @return whether the lease bounds this holding and has run out on this JVM's clock */
    boolean leaseOver() {
        return lease.overAt(System.nanoTime());
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
        lease.end();
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

    /** @return true if the listener must run now because the lock is already lost */
    synchronized boolean addLostListener(Runnable listener) {
        if (status == Status.LOST) {
            return true;
        }
        if (lostListeners == null) {
            lostListeners = new ArrayList<>(1);
        }
        lostListeners.add(listener);
        return false;
    }

    synchronized List<Runnable> takeLostListeners() {
        List<Runnable> all = lostListeners == null ? List.of() : lostListeners;
        lostListeners = null;
        return all;
    }

    @Override
    public String toString() {
        return "'" + state.name + "' token " + grant.fencingToken() + " held by " + caller.owner().id();
    }
}
