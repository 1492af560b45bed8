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
}
