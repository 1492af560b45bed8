package io.txlock.bench;

import java.time.Duration;

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
