package io.txlock.redis;

import java.util.concurrent.TimeUnit;

/**
 * Where one waiting attempt learns that the lock was handed to it (the lock's value, published by the release
 * before it on its provider's channel), that it should look again (its provider's channel was confirmed, so a
 * hand-off published before may have been missed), or that it was cancelled.
 */
final class HandOff {

    private String value;
    private boolean nudged;
    private boolean cancelled;

    synchronized void deliver(String handed) {
        value = handed;
        notifyAll();
    }

    synchronized void nudge() {
        nudged = true;
        notifyAll();
    }

    /** Ends the wait; may run on any thread, more than once. */
    synchronized void cancel() {
        cancelled = true;
        notifyAll();
    }

    synchronized boolean cancelled() {
        return cancelled;
    }

    /**
     * Waits until a hand-off, a nudge or a cancel, for at most {@code nanos}. An interrupted thread returns at once
     * and keeps its interrupt flag.
     *
     * @return the handed lock's value, or null
     */
    synchronized String await(long nanos) {
        long deadline = System.nanoTime() + nanos;
        try {
            while (value == null && !nudged && !cancelled) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        nudged = false;
        return value;
    }
}
