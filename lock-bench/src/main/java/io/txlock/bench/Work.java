package io.txlock.bench;

import java.util.concurrent.locks.LockSupport;

/** The time a critical section spends inside. */
final class Work {

    private static final long SPIN_LIMIT = 200_000;

    private Work() {
    }

    /**
     * Stays busy (short holds) or parks (long holds) for about {@code nanos}.
     *
     * @param nanos how long; 0 returns at once
     */
    static void hold(long nanos) {
        if (nanos <= 0) {
            return;
        }
        long until = System.nanoTime() + nanos;
        if (nanos > SPIN_LIMIT) {
            LockSupport.parkNanos(nanos);
        }
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }
}
