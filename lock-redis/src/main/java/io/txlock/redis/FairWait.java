package io.txlock.redis;

import io.txlock.LockBackendException;
import io.txlock.spi.Attempt;
import io.txlock.spi.Cancellation;
import io.txlock.spi.LockRequest;
import java.time.Duration;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waiting for a lock on a single master, first come first served, without polling. An attempt that finds the lock
 * held, or free but promised to an earlier waiter, takes a place at the end of the lock's queue in Redis (in the
 * same script), then blocks in a {@code BLPOP} on a list of its own, on a connection of its own. The release before
 * it hands the lock to the first waiter in the same script that frees it: a new fencing token, the waiter's own
 * lease, and the lock's value pushed on that waiter's list, which wakes that waiter alone, on its own thread, with
 * the grant in the reply. No other node is woken, and no other node can take the lock meanwhile.
 *
 * <p>A waiter's {@code BLPOP} lasts at most {@link #recheck}; then it refreshes its place and looks, in the same
 * script, whether the lock is its (handed to it, or free with nobody before it). A place not refreshed for four
 * rechecks expires, and the scripts drop an expired place when it reaches the head of the queue, so a waiter whose
 * process died blocks the queue for at most that long (2 s by default); a lock handed to it is held until the lease
 * it was handed runs out. An attempt that ends without the lock (its wait is over, its caller was interrupted, its
 * manager closes) leaves the queue at once, and passes on a lock handed to it meanwhile; a cancel closes the
 * connection its {@code BLPOP} blocks on. Only the head of a manager's local queue of a name waits here (the core's
 * one contender per name), so a name's Redis queue holds at most one place per manager, and a provider has one
 * blocked connection per name its threads wait for, at most half its pool (see {@link BlockedWaiters}).
 */
final class FairWait {

    /** How often a waiter refreshes its place and looks whether the lock is its, by default. */
    static final Duration RECHECK = Duration.ofMillis(500);
    /** How many rechecks a place lasts without one: how long a dead waiter blocks the queue. */
    private static final int PLACE_RECHECKS = 4;

    private static final Logger log = LoggerFactory.getLogger(FairWait.class);
    private static final BitSet THE_MASTER = BitSet.valueOf(new long[] {1});

    private final Redlock redlock;
    private final RedisNode master;
    private final KeySpace keys;
    private final long recheckNanos;
    private final long placeMillis;
    private final AtomicLong handedByList = new AtomicLong();
    private final AtomicLong queuedLooks = new AtomicLong();
    /** Guarded by this: the waits under way, which close() cancels and lets leave the queue before the client closes. */
    private final Set<HandOff> inFlight = new HashSet<>();
    /** Guarded by this. */
    private boolean closed;

    FairWait(Redlock redlock, RedisNode master, KeySpace keys, Duration recheck) {
        this.redlock = redlock;
        this.master = master;
        this.keys = keys;
        this.recheckNanos = recheck.toNanos();
        this.placeMillis = recheck.toMillis() * PLACE_RECHECKS;
    }

    Attempt tryAcquire(LockRequest request) {
        long wait = request.maxBlock().isNegative() || request.maxBlock().isZero() ? 0 : saturatedNanos(request.maxBlock());
        if (wait == 0) {
            return redlock.tryAcquire(request);
        }
        Redlock.requireMinLease(request);
        HandOff handOff = new HandOff();
        synchronized (this) {
            if (closed) {
                handOff.cancel();
            }
            inFlight.add(handOff);
        }
        try {
            return queueAndWait(request, wait, handOff);
        } finally {
            synchronized (this) {
                inFlight.remove(handOff);
                notifyAll();
            }
        }
    }

    private Attempt queueAndWait(LockRequest request, long wait, HandOff handOff) {
        long deadline = System.nanoTime() + wait;
        String claim = LockValue.newClaim(request.owner());
        List<String> waiterKeys = keys.waiterKeys(request.name(), claim);
        String handedKey = KeySpace.handedKeyOf(waiterKeys);
        Cancellation.Registration cancel = null;
        boolean mayBeQueued = false;
        boolean granted = false;
        try {
            while (true) {
                boolean queuedBefore = mayBeQueued;
                mayBeQueued = true;
                Attempt attempt = redlock.tryAcquire(request, claim, waiterKeys, placeMillis, queuedBefore);
                queuedLooks.incrementAndGet();
                if (attempt.isGranted()) {
                    granted = true;
                    return attempt;
                }
                if (cancel == null) {
                    cancel = request.cancellation().onCancel(handOff::cancel);
                }
                long pause = Math.min(deadline - System.nanoTime(), recheckNanos);
                if (attempt.retryAfter() != null) {
                    pause = Math.min(pause, Math.max(attempt.retryAfter().toNanos(), Duration.ofMillis(1).toNanos()));
                }
                if (pause <= 0 || ended(request, handOff)) {
                    return Attempt.held();
                }
                String handed = master.awaitHandOff(handedKey, pause, handOff);
                if (handed != null) {
                    granted = true;
                    handedByList.incrementAndGet();
                    return Attempt.granted(new RedisGrant(request.name(), KeySpace.scriptKeysOf(waiterKeys),
                            LockValue.tokenOf(handed), claim, THE_MASTER));
                }
                if (ended(request, handOff) || deadline - System.nanoTime() <= 0) {
                    return Attempt.held();
                }
            }
        } finally {
            if (cancel != null) {
                cancel.close();
            }
            if (!granted && mayBeQueued) {
                leave(request.name(), waiterKeys, claim);
            }
        }
    }

    private static boolean ended(LockRequest request, HandOff handOff) {
        return handOff.cancelled() || request.cancellation().isCancelled() || Thread.currentThread().isInterrupted();
    }

    /**
     * Cancels every waiting attempt and lets each leave the queue (and pass on a lock handed to it) while the client
     * is still open, for at most {@code max}.
     */
    void close(Duration max) {
        long deadline = System.nanoTime() + max.toNanos();
        synchronized (this) {
            closed = true;
            inFlight.forEach(HandOff::cancel);
            try {
                for (long left = max.toNanos(); !inFlight.isEmpty() && left > 0; left = deadline - System.nanoTime()) {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** @return how many times waiters ran the acquire script (to queue, or to look again): for tests */
    long queuedLooks() {
        return queuedLooks.get();
    }

    /** @return how many grants waiters took from their lists (not from their own script): for tests */
    long handedByList() {
        return handedByList.get();
    }

    /** Gives up a place, at once; if that fails, the place expires within four rechecks. */
    private void leave(String name, List<String> waiterKeys, String claim) {
        try {
            if (master.leave(waiterKeys, claim)) {
                log.debug("'{}' was handed to a waiter that gave up; passed on to the next", name);
            }
        } catch (LockBackendException e) {
            log.debug("could not leave the queue of '{}' (the place expires within {} ms): {}", name, placeMillis, e.getMessage());
        }
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 2;
        }
    }
}
