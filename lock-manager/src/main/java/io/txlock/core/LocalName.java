package io.txlock.core;

import io.txlock.LockMetrics;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What this manager knows locally about one name: its local holder and its FIFO queue of local waiters.
 * Only the head of the queue, and only while no local owner holds the name, talks to the backend; so one
 * JVM sends one contender per name, however many threads wait. Exists only while someone holds or waits
 * ({@link LocalNames} counts its references).
 *
 * <p>Guards: {@link #mutex} guards everything here (the queue, the holding, the subscription, the hint flag), and
 * with it the state of the waiters in the queue and the hold count of the holding; {@link #refs} alone is guarded
 * by the map of {@link LocalNames}. Every method here is called with the mutex held.
 */
final class LocalName {
    final String name;
    final ReentrantLock mutex = new ReentrantLock();
    private final LockMetrics metrics;
    /**
     * The queue, linked through {@link Contender#next}: mostly one contender at a time, the holder's, so a name that
     * nobody else wants allocates nothing for it.
     */
    private Contender first;
    private Contender last;
    private int waiting;
    Holding holding;
    private AutoCloseable subscription;
    /** The provider offered no wake-up hint. */
    boolean noHints;
    /** Holders and waiters that keep this state alive. */
    int refs;

    LocalName(String name, LockMetrics metrics) {
        this.name = name;
        this.metrics = metrics;
    }

    /** @return how many local callers wait for this name */
    int waiting() {
        return waiting;
    }

    boolean isTurnOf(Contender w) {
        return holding == null && first == w;
    }

    void enqueue(Contender w) {
        w.next = null;
        if (last == null) {
            first = w;
        } else {
            last.next = w;
        }
        last = w;
        waiting++;
        metrics.waiting(1);
    }

    /** @return whether {@code w} was in the queue, and is no longer */
    private boolean remove(Contender w) {
        Contender before = null;
        for (Contender c = first; c != null; before = c, c = c.next) {
            if (c == w) {
                if (before == null) {
                    first = c.next;
                } else {
                    before.next = c.next;
                }
                if (last == c) {
                    last = before;
                }
                c.next = null;
                waiting--;
                return true;
            }
        }
        return false;
    }

    /** Removes a waiter that gave up or was granted; wakes the next one if it was first. */
    void leave(Contender w) {
        boolean wasFirst = first == w;
        if (remove(w)) {
            metrics.waiting(-1);
        }
        if (wasFirst) {
            wakeHead();
        }
    }

    void wakeHead() {
        if (holding == null) {
            Contender head = first;
            if (head != null) {
                head.wake();
            }
        }
    }

    /** Wakes every waiter, so that each notices the manager closed. */
    void wakeAll() {
        for (Contender w = first; w != null; w = w.next) {
            w.wake();
        }
    }

    /** The local holding the caller may re-enter: same owner, or held by the caller's own thread. */
    Holding reentrant(Caller caller) {
        Holding h = holding;
        if (h != null && h.isUsable() && (h.caller.key().equals(caller.key()) || h.caller.thread() == caller.thread())) {
            return h;
        }
        return null;
    }

    void grant(Contender w, Holding h) {
        if (remove(w)) {
            metrics.waiting(-1);
        }
        holding = h;
    }

    /** @return whether {@code h} was the local holding, now freed */
    boolean free(Holding h) {
        if (holding == h) {
            holding = null;
            wakeHead();
            return true;
        }
        return false;
    }

    /** Keeps {@code s} unless a subscription exists; returns the one the caller must close, or null. */
    AutoCloseable keepSubscription(AutoCloseable s) {
        if (subscription != null) {
            return s;
        }
        subscription = s;
        return null;
    }

    boolean hasSubscription() {
        return subscription != null;
    }

    AutoCloseable takeSubscription() {
        AutoCloseable s = subscription;
        subscription = null;
        return s;
    }
}
