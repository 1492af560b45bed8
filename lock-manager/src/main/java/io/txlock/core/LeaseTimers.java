package io.txlock.core;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The lease work of held locks (a renewal, or the end of a lease that is not renewed or whose renewal has not been
 * answered yet: one task per lock at a time, see {@link Lease#armTimer}), run by sweeps of one timer
 * rather than by a timer task per lock. Scheduling adds an entry to a set and cancelling removes it; the timer
 * thread is woken only when an entry is due before every sweep already planned. A lock held for a moment, the
 * common case, thus never wakes the timer thread: on two cores that wake-up cost more than the lock's own work.
 * Due times are rounded down, by at most a sixteenth of their delay (1 ms to 1 s): entries scheduled close together
 * share a sweep, so a sweep's walk over the set is not repeated for every entry, and lease work is never late for it.
 */
final class LeaseTimers {

    private static final long NONE = Long.MAX_VALUE;
    private static final long MIN_GRAIN = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long MAX_GRAIN = TimeUnit.SECONDS.toNanos(1);

    private final ScheduledExecutorService timer;
    private final Consumer<Runnable> runner;
    private final Set<Due> pending = ConcurrentHashMap.newKeySet();
    /** The time (System.nanoTime) of the earliest sweep planned, or NONE; a sweep at or before it is scheduled. */
    private final AtomicLong sweepAt = new AtomicLong(NONE);

    /**
     * @param timer the thread that runs the sweeps
     * @param runner where due tasks run (not on the timer thread: they may call the backend)
     */
    LeaseTimers(ScheduledExecutorService timer, Consumer<Runnable> runner) {
        this.timer = timer;
        this.runner = runner;
    }

    /** A task due at a time; {@link #cancel()} before then and it never runs. Equal only to itself. */
    final class Due extends RandomHashed {
        private final long atNanos;
        private final Runnable task;

        private Due(long atNanos, Runnable task) {
            this.atNanos = atNanos;
            this.task = task;
        }

        void cancel() {
            pending.remove(this);
        }
    }

    /**
     * @param task what to run
     * @param delayNanos in how long
     * @return the scheduled task
     */
    Due schedule(Runnable task, long delayNanos) {
        long delay = Math.max(0, delayNanos);
        long grain = Math.max(MIN_GRAIN, Math.min(MAX_GRAIN, delay / 16));
        long now = System.nanoTime();
        long at = now + delay;
        at -= Math.floorMod(at, grain);
        Due due = new Due(at - now < 0 ? now : at, task);
        pending.add(due);
        sweepBy(due.atNanos);
        return due;
    }

    /** @return how many tasks are scheduled and not yet run or cancelled */
    int pending() {
        return pending.size();
    }

    private void sweepBy(long at) {
        while (true) {
            long planned = sweepAt.get();
            if (planned != NONE && planned - at <= 0) {
                return;
            }
            if (sweepAt.compareAndSet(planned, at)) {
                try {
                    timer.schedule(this::sweep, Math.max(0, at - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException closed) {
                    // the manager closed: its holdings were released, no lease work is left to do
                }
                return;
            }
        }
    }

    private void sweep() {
        sweepAt.set(NONE);
        long now = System.nanoTime();
        long next = NONE;
        for (Due due : pending) {
            if (due.atNanos - now <= 0) {
                if (pending.remove(due)) {
                    runner.accept(due.task);
                }
            } else if (next == NONE || due.atNanos - next < 0) {
                next = due.atNanos;
            }
        }
        if (next != NONE) {
            sweepBy(next);
        }
    }
}
