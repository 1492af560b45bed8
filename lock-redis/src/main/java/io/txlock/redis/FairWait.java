package io.txlock.redis;

import io.txlock.LockBackendException;
import io.txlock.spi.Attempt;
import io.txlock.spi.Cancellation;
import io.txlock.spi.LockRequest;
import java.time.Duration;
import java.util.BitSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waiting for a lock on a single master, first come first served, without polling. An attempt that finds the lock
 * held, or free but promised to an earlier waiter, takes a place at the end of the lock's queue in Redis (in the
 * same script). The release before it hands the lock to the first waiter in the same script that frees it: a new
 * fencing token, the waiter's own lease, and one message on that waiter's provider's channel, which the
 * provider's subscriber gives to that attempt alone. No other node is woken, and no other node can take the lock
 * meanwhile.
 *
 * <p>A waiter refreshes its place every {@link #RECHECK} and looks, in the same script, whether the lock was handed
 * to it (in case the message was lost); a place not refreshed for {@link #PLACE} expires, and the scripts drop an
 * expired place when it reaches the head of the queue, so a waiter whose process died blocks the queue for at most
 * that long. An attempt that ends without the lock (its wait is over, its caller was interrupted, its manager
 * closes) leaves the queue at once, and passes on a lock handed to it meanwhile. Only the head of a manager's local
 * queue of a name waits here (the core's one contender per name), so a name's Redis queue holds at most one place
 * per manager.
 */
final class FairWait {

    /** How long a waiter's place in a lock's queue lasts without a refresh: how long a dead waiter blocks the queue. */
    static final Duration PLACE = Duration.ofSeconds(2);
    /** How often a waiter refreshes its place and looks whether the lock was handed to it, if no message came. */
    static final Duration RECHECK = Duration.ofMillis(500);
    /**
     * How often it looks while its provider's subscriber connects (the provider's first wait, a reconnect): a lock
     * handed to it meanwhile would stay idle until then, and nobody else can take it. A subscriber that failed to
     * connect (a refused SUBSCRIBE, a server down) leaves it at {@link #RECHECK}.
     */
    static final Duration RECHECK_UNHEARD = Duration.ofMillis(10);

    private static final Logger log = LoggerFactory.getLogger(FairWait.class);
    private static final BitSet THE_MASTER = BitSet.valueOf(new long[] {1});

    private final Redlock redlock;
    private final RedisNode master;
    private final KeySpace keys;
    private final String handOffChannel;
    private final AtomicLong handedByMessage = new AtomicLong();
    /** Guarded by this: attempts under way, which close() lets leave the queue before the client closes. */
    private int inFlight;

    FairWait(Redlock redlock, RedisNode master, KeySpace keys, String handOffChannel) {
        this.redlock = redlock;
        this.master = master;
        this.keys = keys;
        this.handOffChannel = handOffChannel;
    }

    Attempt tryAcquire(LockRequest request) {
        long wait = request.maxBlock().isNegative() || request.maxBlock().isZero() ? 0 : saturatedNanos(request.maxBlock());
        if (wait == 0) {
            return redlock.tryAcquire(request);
        }
        Redlock.requireMinLease(request);
        synchronized (this) {
            inFlight++;
        }
        try {
            return queueAndWait(request, wait);
        } finally {
            synchronized (this) {
                inFlight--;
                notifyAll();
            }
        }
    }

    private Attempt queueAndWait(LockRequest request, long wait) {
        long deadline = System.nanoTime() + wait;
        String claim = LockValue.newClaim(request.owner());
        ReleaseSubscriber subscriber = master.subscriber();
        HandOff handOff = subscriber.expect(claim);
        Cancellation.Registration cancel = null;
        boolean mayBeQueued = false;
        boolean granted = false;
        try {
            while (true) {
                mayBeQueued = true;
                Attempt attempt = redlock.tryAcquire(request, claim, PLACE.toMillis(), handOffChannel);
                if (attempt.isGranted()) {
                    granted = true;
                    return attempt;
                }
                if (cancel == null) {
                    subscriber.listen();
                    cancel = request.cancellation().onCancel(handOff::cancel);
                }
                long recheck = subscriber.connecting() ? RECHECK_UNHEARD.toNanos() : RECHECK.toNanos();
                long pause = Math.min(deadline - System.nanoTime(), recheck);
                if (attempt.retryAfter() != null) {
                    pause = Math.min(pause, Math.max(attempt.retryAfter().toNanos(), Duration.ofMillis(1).toNanos()));
                }
                String handed = pause > 0 && !Thread.currentThread().isInterrupted() ? handOff.await(pause) : null;
                if (handed != null) {
                    granted = true;
                    handedByMessage.incrementAndGet();
                    return Attempt.granted(handedGrant(request.name(), claim, handed));
                }
                if (handOff.cancelled() || request.cancellation().isCancelled() || Thread.currentThread().isInterrupted()
                        || deadline - System.nanoTime() <= 0) {
                    return Attempt.held();
                }
            }
        } finally {
            if (cancel != null) {
                cancel.close();
            }
            subscriber.forget(claim, handOff);
            if (!granted && mayBeQueued) {
                leave(request.name(), claim);
            }
        }
    }

    /**
     * Stops every waiting attempt and lets each leave the queue (and pass on a lock handed to it) while the client is
     * still open, for at most {@code max}.
     */
    void close(Duration max) {
        master.subscriber().close();
        long deadline = System.nanoTime() + max.toNanos();
        synchronized (this) {
            try {
                for (long left = max.toNanos(); inFlight > 0 && left > 0; left = deadline - System.nanoTime()) {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** @return how many grants waiters took from a hand-off message (not from their own script): for tests */
    long handedByMessage() {
        return handedByMessage.get();
    }

    private RedisGrant handedGrant(String name, String claim, String value) {
        LockValue parsed = LockValue.parse(value);
        return new RedisGrant(name, keys.lockKey(name), parsed.token(), claim, THE_MASTER);
    }

    /** Gives up a place, at once; if that fails, the place expires within {@link #PLACE}. */
    private void leave(String name, String claim) {
        try {
            if (master.leave(keys.scriptKeys(name), claim)) {
                log.debug("'{}' was handed to a waiter that gave up; passed on to the next", name);
            }
        } catch (LockBackendException e) {
            log.debug("could not leave the queue of '{}' (the place expires within {}): {}", name, PLACE, e.getMessage());
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
