package io.txlock.core;

import io.txlock.LockScope;
import io.txlock.spi.Grant;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A grant held by one local owner, shared by all its reentrant handles. */
final class Holding {

    enum Status { HELD, SUSPENDED, RELEASING, RELEASED, LOST }

    final NameState state;
    final Caller caller;
    final Grant grant;
    final boolean renews;
    /** When the grant was made, on this JVM's clock. */
    final Instant since;
    /** When the grant was handed to this holding (System.nanoTime), for how long it was held. */
    final long grantedNanos = System.nanoTime();
    /** Guarded by state.mutex. */
    int holds = 1;
    private Status status = Status.HELD;
    private String lostReason;
    private volatile Duration lease;
    /** When the lease counted now started (System.nanoTime): the start of the attempt, or of the last renewal. */
    private long leaseStartNanos;
    private volatile long expiresAtNanos;
    private volatile Instant expiresAt;
    /** Guarded by this: the end no lease may pass, once a shortening renewal went unanswered. */
    private boolean capped;
    private long capNanos;
    private Instant capAt;
    /** Guarded by this: renewals sent to the backend and not answered yet (background, or extend). */
    private int renewing;
    /** Guarded by this: when the next background renewal is due (System.nanoTime). */
    private long renewAtNanos;
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
            restartLease(startNanos, wallStart, lease);
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

    /**
     * Counts the lease from {@code startNanos}, a moment before the backend granted or renewed it, so that this
     * JVM's lease never outlasts the backend's; the next background renewal is due a third of the lease from now,
     * or sooner if the call took so long that less than two thirds remain.
     */
    synchronized void restartLease(long startNanos, Instant wallStart, Duration lease) {
        this.lease = lease;
        this.leaseStartNanos = startNanos;
        this.expiresAtNanos = startNanos + lease.toNanos();
        this.expiresAt = wallStart.plus(lease);
        if (capped && capNanos - expiresAtNanos < 0) {
            this.expiresAtNanos = capNanos;
            this.expiresAt = capAt;
        }
        long now = System.nanoTime();
        long every = Math.max(TimeUnit.MILLISECONDS.toNanos(1), lease.toNanos() / 3);
        this.renewAtNanos = now + Math.min(every, Math.max(0, (expiresAtNanos - now) / 2));
    }

    /**
     * A renewal for {@code lease} from {@code startNanos} is about to be sent. From then on its outcome is unknown
     * until the backend answers, and if it shortens the lease, the backend may apply it at once: until a confirmation
     * says otherwise, the lease in force is the shorter of the one counted now and the new one. Nothing changes for a
     * renewal that does not shorten it.
     *
     * @return whether the lease now ends sooner
     */
    synchronized boolean leaseMayEndAt(long startNanos, Instant wallStart, Duration lease) {
        long end = startNanos + lease.toNanos();
        if (end - expiresAtNanos >= 0) {
            return false;
        }
        this.leaseStartNanos = startNanos;
        this.expiresAtNanos = end;
        this.expiresAt = wallStart.plus(lease);
        long now = System.nanoTime();
        this.renewAtNanos = Math.min(renewAtNanos, now + Math.max(0, (end - now) / 2));
        return true;
    }

    /**
     * A renewal that shortened the lease to {@code lease} from {@code startNanos} got no answer: it may still reach the
     * backend later, after renewals sent since, and cut the lease there. So the lease ends by then for good: no later
     * renewal lifts the cap (the model in docs/model refutes a cap that is lifted).
     */
    synchronized void capLease(long startNanos, Instant wallStart, Duration lease) {
        long end = startNanos + lease.toNanos();
        if (!capped || end - capNanos < 0) {
            capped = true;
            capNanos = end;
            capAt = wallStart.plus(lease);
        }
        if (capNanos - expiresAtNanos < 0) {
            expiresAtNanos = capNanos;
            expiresAt = capAt;
        }
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

    /** @return HELD or SUSPENDED, whether or not its lease ran out: not yet ended by a release or a loss */
    synchronized boolean isLive() {
        return status == Status.HELD || status == Status.SUSPENDED;
    }

    /** @return live, and within its lease: its owner may use it (re-enter it, extend it, be shown as its holder) */
    synchronized boolean isUsable() {
        return isLive() && !leaseOverAt(System.nanoTime());
    }

    /**
     * @return HELD (not SUSPENDED), within its lease, and {@link Grant#knownInForceAt known in force} by the provider:
     *     the owner can rely on the lock now. Read under the same monitor as {@link #renewed}, so once this saw the
     *     lease over, no late renewal makes it true again.
     */
    synchronized boolean isValid() {
        long now = System.nanoTime();
        return status == Status.HELD && !leaseOverAt(now) && grant.knownInForceAt(now);
    }

    /** @return whether the lease bounds this holding and has run out on this JVM's clock */
    synchronized boolean leaseOver() {
        return leaseOverAt(System.nanoTime());
    }

    private boolean leaseOverAt(long now) {
        return limited() && now - expiresAtNanos >= 0;
    }

    /** A renewal (background, or an extend) is sent to the backend. */
    synchronized void renewalStarted() {
        renewing++;
    }

    /**
     * Starts a background renewal unless one is under way already.
     *
     * @return whether the caller is to send it
     */
    synchronized boolean startBackgroundRenewal() {
        if (renewing > 0) {
            return false;
        }
        renewing++;
        return true;
    }

    /** A renewal failed, or was refused: the lease runs on as it did. */
    synchronized void renewalEnded() {
        renewing--;
    }

    /** A background renewal failed: the next attempt is due at {@code atNanos} (at the latest when the lease ends). */
    synchronized void renewAgainAt(long atNanos) {
        renewAtNanos = atNanos;
    }

    /**
     * The backend confirmed a renewal sent at {@code startNanos}. It counts only if it came while the holding was
     * live and its lease still ran: once the lease ran out on this JVM's clock, {@link #isValid} said so and the
     * backend may have let another owner in, so a late confirmation cannot revive it. A renewal sent before the
     * one the lease already counts from (a slow one overtaken by an extend) adds nothing.
     *
     * @return true if the holding is still live and within its lease, now counted from this renewal or a later one
     */
    synchronized boolean renewed(long startNanos, Instant wallStart, Duration lease) {
        renewing--;
        if (!isLive() || leaseOverAt(System.nanoTime())) {
            return false;
        }
        if (startNanos - leaseStartNanos >= 0) {
            restartLease(startNanos, wallStart, lease);
        }
        return true;
    }

    /** @return renewals sent and not answered yet */
    synchronized int renewalsUnderWay() {
        return renewing;
    }

    /**
     * (Re)schedules this holding's one lease timer ({@code work}): at its next background renewal; or at the end of
     * its lease where no renewal is due (auto-renew off) or one is under way, so that a backend that stops answering
     * without refusing cannot keep the lock valid past its lease while the call hangs.
     */
    synchronized void armLeaseTimer(LeaseTimers timers, Runnable work) {
        if (!isLive()) {
            return;
        }
        // a millisecond past the end, since the timers may run a task that much early: a task that finds the lease
        // not over yet sets the timer again, and would otherwise spin through the lease's last millisecond
        long at = expiresAtNanos + TimeUnit.MILLISECONDS.toNanos(1);
        if (renews && renewing == 0 && renewAtNanos - expiresAtNanos < 0) {
            at = renewAtNanos;
        }
        setTimer(timers.schedule(work, at - System.nanoTime()));
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

    private void setTimer(LeaseTimers.Due next) {
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
