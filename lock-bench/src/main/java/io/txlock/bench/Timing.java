package io.txlock.bench;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * How long a measured run lasts: a warm-up whose operations are checked but not measured, then the measured
 * window.
 *
 * @param warmup the warm-up
 * @param duration the measured window
 */
public record Timing(Duration warmup, Duration duration) {

    /** @return warm-up plus measured window, in nanoseconds */
    public long totalNanos() {
        return warmup.toNanos() + duration.toNanos();
    }

    /**
     * @param begin when the run began (nanoTime)
     * @return its measured window: after the warm-up, as long as the duration
     */
    public Window window(long begin) {
        long from = begin + warmup.toNanos();
        return new Window(from, from + duration.toNanos());
    }

    /**
     * Sleeps until a point in time, for a run's window to begin or end.
     *
     * @param nanoTime when to wake ({@link System#nanoTime()})
     * @throws InterruptedException if interrupted meanwhile
     */
    static void sleepUntil(long nanoTime) throws InterruptedException {
        long left;
        while ((left = nanoTime - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(Math.min(left, 50_000_000));
        }
    }

    /**
     * The measured window of a run: only operations that finish inside it are counted.
     *
     * @param from its start (nanoTime), inclusive
     * @param to its end (nanoTime), exclusive
     */
    public record Window(long from, long to) {

        /**
         * @param nanoTime when an operation finished
         * @return whether it counts
         */
        public boolean contains(long nanoTime) {
            return nanoTime >= from && nanoTime < to;
        }

        /** @return its length in seconds */
        public double seconds() {
            return (to - from) / 1e9;
        }
    }
}
