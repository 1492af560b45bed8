package io.txlock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * A holding's lease on this JVM's monotonic clock: when it ends, when it is next renewed, the renewals under way, the
 * cap left by a shortening renewal that went unanswered, and its one lease timer. Every field is guarded by this
 * lease's monitor; nothing here calls out while holding it, except to cancel a timer.
 *
 * <p>The lease counts from a moment before the backend granted or renewed it, so that it never outlasts the
 * backend's; once it ran out on this clock, no late confirmation makes it run again ({@link #renewed}).
 */
final class Lease {

    /** Whether the lease bounds the holding at all; see {@link #limited()}. */
    private final boolean limited;
    /** Whether the lease is renewed in the background (or the transaction's lock lives as long as it). */
    final boolean renews;
    private Duration lease;
    /** When the lease counted now started (System.nanoTime): the start of the attempt, or of the last renewal. */
    private long startNanos;
    private long expiresAtNanos;
    /** The end on the wall clock is {@code endFrom} plus {@code endAfter}, added up only when asked for. */
    private Instant endFrom;
    private Duration endAfter;
    /** The end no lease may pass, once a shortening renewal went unanswered. */
    private boolean capped;
    private long capNanos;
    private Instant capFrom;
    private Duration capAfter;
    /** Renewals sent to the backend and not answered yet (background, or extend). */
    private int renewing;
    /** When the next background renewal is due (System.nanoTime). */
    private long renewAtNanos;
    private LeaseTimers.Due timer;
    /** The holding ended: no timer is set any more, no renewal counts. */
    private boolean ended;

    /**
     * @param leased whether the backend expires the grant unless renewed ({@link io.txlock.spi.Grant#leased()})
     * @param renews whether the owner renews it
     */
    Lease(boolean leased, boolean renews, Duration lease, long startNanos, Instant wallStart) {
        this.limited = leased || !renews;
        this.renews = renews;
        this.lease = lease;
        if (limited) {
            count(startNanos, wallStart, lease);
        }
    }

    /**
     * @return whether the lease bounds this holding: the backend expires the grant unless renewed, or the owner
     *     turned renewal off, which makes the lease a hard limit even for a grant that lives with its session
     */
    boolean limited() {
        return limited;
    }

    synchronized Duration duration() {
        return lease;
    }

    /**
     * Counts the lease from {@code startNanos}, a moment before the backend granted or renewed it, so that this
     * JVM's lease never outlasts the backend's; the next background renewal is due a third of the lease from now,
     * or sooner if the call took so long that less than two thirds remain.
     */
    synchronized void restart(long startNanos, Instant wallStart, Duration lease) {
        count(startNanos, wallStart, lease);
    }

    /** {@link #restart}, for the constructor (no other thread sees this lease yet) and with this lease's monitor held. */
    private void count(long startNanos, Instant wallStart, Duration lease) {
        this.lease = lease;
        this.startNanos = startNanos;
        this.expiresAtNanos = startNanos + lease.toNanos();
        this.endFrom = wallStart;
        this.endAfter = lease;
        if (capped && capNanos - expiresAtNanos < 0) {
            this.expiresAtNanos = capNanos;
            this.endFrom = capFrom;
            this.endAfter = capAfter;
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
    synchronized boolean mayEndAt(long startNanos, Instant wallStart, Duration lease) {
        long end = startNanos + lease.toNanos();
        if (end - expiresAtNanos >= 0) {
            return false;
        }
        this.startNanos = startNanos;
        this.expiresAtNanos = end;
        this.endFrom = wallStart;
        this.endAfter = lease;
        long now = System.nanoTime();
        this.renewAtNanos = Math.min(renewAtNanos, now + Math.max(0, (end - now) / 2));
        return true;
    }

    /**
     * A renewal that shortened the lease to {@code lease} from {@code startNanos} got no answer: it may still reach the
     * backend later, after renewals sent since, and cut the lease there. So the lease ends by then for good: no later
     * renewal lifts the cap (the model in docs/model refutes a cap that is lifted).
     */
    synchronized void cap(long startNanos, Instant wallStart, Duration lease) {
        long end = startNanos + lease.toNanos();
        if (!capped || end - capNanos < 0) {
            capped = true;
            capNanos = end;
            capFrom = wallStart;
            capAfter = lease;
        }
        if (capNanos - expiresAtNanos < 0) {
            expiresAtNanos = capNanos;
            endFrom = capFrom;
            endAfter = capAfter;
        }
    }

    synchronized long expiresAtNanos() {
        return expiresAtNanos;
    }

    /** @return when the lease ends on the wall clock, or null if it does not bound the holding */
    synchronized Instant expiresAt() {
        return limited ? endFrom.plus(endAfter) : null;
    }

    /** @return whether the lease bounds the holding and less than a third of it is left at {@code now}, or none */
    synchronized boolean mostlySpentAt(long now) {
        return limited && expiresAtNanos - now < lease.toNanos() / 3;
    }

    /** @return whether the lease bounds the holding and has run out on this JVM's clock at {@code now} */
    synchronized boolean overAt(long now) {
        return limited && now - expiresAtNanos >= 0;
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
     * live and its lease still ran: once the lease ran out on this JVM's clock, {@link Holding#isValid} said so and
     * the backend may have let another owner in, so a late confirmation cannot revive it. A renewal sent before the
     * one the lease already counts from (a slow one overtaken by an extend) adds nothing.
     *
     * @return true if the holding is still live and within its lease, now counted from this renewal or a later one
     */
    synchronized boolean renewed(long startNanos, Instant wallStart, Duration lease) {
        renewing--;
        if (ended || overAt(System.nanoTime())) {
            return false;
        }
        if (startNanos - this.startNanos >= 0) {
            restart(startNanos, wallStart, lease);
        }
        return true;
    }

    /** @return renewals sent and not answered yet */
    synchronized int renewalsUnderWay() {
        return renewing;
    }

    /**
     * (Re)schedules this lease's one timer ({@code work}): at its next background renewal; or at the end of the
     * lease where no renewal is due (auto-renew off) or one is under way, so that a backend that stops answering
     * without refusing cannot keep the lock valid past its lease while the call hangs.
     */
    synchronized void armTimer(LeaseTimers timers, Runnable work) {
        if (ended) {
            return;
        }
        // a millisecond past the end, since the timers may run a task that much early: a task that finds the lease
        // not over yet sets the timer again, and would otherwise spin through the lease's last millisecond
        long at = expiresAtNanos + TimeUnit.MILLISECONDS.toNanos(1);
        if (renews && renewing == 0 && renewAtNanos - expiresAtNanos < 0) {
            at = renewAtNanos;
        }
        cancelTimer();
        timer = timers.schedule(work, at - System.nanoTime());
    }

    /** The holding ended: its timer is cancelled, and no renewal counts any more. */
    synchronized void end() {
        ended = true;
        cancelTimer();
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }
}
