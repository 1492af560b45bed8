package io.txlock.core;

import io.txlock.LockBackendException;
import io.txlock.LockMetrics;
import io.txlock.LockNotHeldException;
import io.txlock.LockOptions;
import io.txlock.LockMetrics.Lost;
import io.txlock.LockMetrics.Renewal;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the leases of one manager's holdings: renews them in the background every third of the lease, extends them on
 * request, and ends a holding whose lease ran out on this JVM's clock, or whose renewal the backend refused, even
 * while a renewal hangs in the backend. Each holding has one lease timer ({@link Lease#armTimer}) on the shared
 * {@link LeaseTimers}. The lease itself is guarded by its {@link Lease}; this keeps no state of its own but its
 * count of failed renewals, a {@link LongAdder}.
 */
final class LeaseKeeper {

    /** Ends a holding that is lost ({@link Holdings#lose}). */
    interface Losses {
        void lose(Holding holding, Lost cause, String reason);
    }

    private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

    private final Backend backend;
    private final Lifecycle lifecycle;
    private final LeaseTimers timers;
    private final LockMetrics metrics;
    private final Losses losses;
    private final LongAdder failures = new LongAdder();

    LeaseKeeper(Backend backend, Lifecycle lifecycle, LockMetrics metrics, Losses losses) {
        this.backend = backend;
        this.lifecycle = lifecycle;
        this.timers = new LeaseTimers(lifecycle.timers, lifecycle::execute);
        this.metrics = metrics;
        this.losses = losses;
    }

    /** @return renewals that failed or were refused, since the manager was built */
    long renewalFailures() {
        return failures.sum();
    }

    /** @return how many lease timers are pending */
    int pendingTimers() {
        return timers.pending();
    }

    /** Starts keeping a new holding's lease, before its caller gets it. */
    void keep(Holding holding, Duration lease) {
        if (!holding.lease.limited()) {
            return;
        }
        if (holding.lease.mostlySpentAt(System.nanoTime())) {
            confirmLateGrant(holding, lease);
        }
        arm(holding);
    }

    /**
     * The attempt waited in the backend (a row lock, a queue) for more than two thirds of the lease, so the lease
     * counted from its start has less than a third left, or none, when the grant is handed out, although the grant
     * itself came at the end of the wait: renew it once, on the caller's thread, and count the lease from that
     * renewal. Otherwise a background renewal would have that little time to get through, and a lease without
     * renewal ({@code autoRenew} off) would be over, or nearly, before its caller got it.
     */
    private void confirmLateGrant(Holding holding, Duration lease) {
        long start = System.nanoTime();
        Instant wallStart = Instant.now();
        renewInBackend(holding, lease, " after a wait of more than two thirds of its lease");
        holding.lease.restart(start, wallStart, lease);
    }

    void extend(Holding holding, Duration lease) {
        LockOptions.requireLease(lease);
        loseIfLeaseOver(holding);
        if (!holding.isUsable()) {
            throw new LockNotHeldException("cannot extend lock " + holding + ": " + holding.status()
                    + (holding.lostReason() != null ? " (" + holding.lostReason() + ")" : ""));
        }
        if (!holding.lease.limited()) {
            return;
        }
        holding.lease.renewalStarted();
        try {
            renewNow(holding, lease);
        } finally {
            arm(holding);
        }
    }

    /**
     * Loses the holding if its lease ran out on this JVM's clock with no renewal confirmed in time.
     *
     * @return whether the lease had run out
     */
    boolean loseIfLeaseOver(Holding holding) {
        if (!holding.leaseOver()) {
            return false;
        }
        losses.lose(holding, Lost.LEASE_EXPIRED, "lease of " + holding.lease.duration() + " ran out at "
                + holding.expiresAt() + (holding.lease.renews ? " before a renewal was confirmed" : " (autoRenew off)"));
        return true;
    }

    /** (Re)schedules the holding's one lease timer; see {@link Lease#armTimer}. */
    private void arm(Holding holding) {
        if (lifecycle.isClosed()) {
            return;
        }
        holding.lease.armTimer(timers, holding);
    }

    /**
     * The holding's lease timer is due: the lease ended (lost, even while a renewal hangs in the backend), or a
     * background renewal is due, or (a timer that ran early or was overtaken) the timer is set again.
     */
    void leaseWork(Holding holding) {
        if (!holding.isLive() || loseIfLeaseOver(holding)) {
            return;
        }
        if (holding.lease.renews && holding.lease.startBackgroundRenewal()) {
            renewInBackground(holding);
        } else {
            arm(holding);
        }
    }

    /** Sends a renewal counted by {@link Lease#startBackgroundRenewal}; the lease's end stays watched meanwhile. */
    private void renewInBackground(Holding holding) {
        arm(holding);
        try {
            renewNow(holding, holding.lease.duration());
            arm(holding);
        } catch (LockNotHeldException e) {
            log.debug("renewing {}: {}", holding, e.getMessage());
        } catch (RuntimeException e) {
            long now = System.nanoTime();
            long left = holding.lease.expiresAtNanos() - now;
            if (left <= 0) {
                losses.lose(holding, Lost.BACKEND_UNREACHABLE, "backend unreachable until the lease ran out: " + e.getMessage());
            } else {
                log.warn("renewing {} failed, retrying within its lease: {}", holding, e.toString());
                holding.lease.renewAgainAt(now + Math.min(left, Math.max(TimeUnit.MILLISECONDS.toNanos(1),
                        holding.lease.duration().toNanos() / 10)));
                arm(holding);
            }
        }
    }

    /**
     * Sends a renewal the caller counted with {@link Lease#renewalStarted}, for {@code lease} from before the call.
     * Until the backend confirms it, the lease runs on as before, or ends sooner if the renewal shortens it (the
     * backend may apply it before answering, or without an answer ever coming), and its end is still watched: a
     * confirmation that comes after the lease ran out on this JVM's clock does not revive the holding.
     *
     * @throws LockNotHeldException if the backend refused, or confirmed too late; the holding is lost
     * @throws LockBackendException if the backend failed; only a shortened lease changed
     */
    private void renewNow(Holding holding, Duration lease) {
        long start = System.nanoTime();
        Instant wallStart = Instant.now();
        boolean shortening = holding.lease.mayEndAt(start, wallStart, lease);
        if (shortening) {
            arm(holding);
        }
        try {
            renewInBackend(holding, lease, "");
        } catch (LockNotHeldException e) {
            holding.lease.renewalEnded();
            losses.lose(holding, Lost.RENEWAL_REFUSED, "renewal refused: " + e.getMessage());
            throw e;
        } catch (RuntimeException | Error e) {
            holding.lease.renewalEnded();
            if (shortening) {
                holding.lease.cap(start, wallStart, lease);
            }
            throw e;
        }
        if (!holding.lease.renewed(start, wallStart, lease)) {
            loseIfLeaseOver(holding);
            throw new LockNotHeldException("lock " + holding + " is no longer held (" + holding.status()
                    + (holding.lostReason() != null ? ": " + holding.lostReason() : "")
                    + "): the backend confirmed the renewal only after the lease had run out on this JVM's clock, or after the lock had ended");
        }
    }

    /** The one call of {@link io.txlock.spi.LockProvider#renew}, counted by its outcome; {@code tail} ends its error. */
    private void renewInBackend(Holding holding, Duration lease, String tail) {
        try {
            backend.run(() -> backend.provider.renew(holding.grant, lease), "renew", holding.state.name, tail);
        } catch (LockNotHeldException e) {
            failures.increment();
            metrics.renewal(Renewal.REFUSED);
            throw e;
        } catch (RuntimeException e) {
            failures.increment();
            metrics.renewal(Renewal.FAILED);
            throw e;
        }
        metrics.renewal(Renewal.OK);
    }
}
