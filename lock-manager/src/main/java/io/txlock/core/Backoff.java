package io.txlock.core;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/** Pauses between attempts of a waiter whose provider answers at once: exponential, with jitter, capped. */
final class Backoff {

    static final long FIRST_NANOS = Duration.ofMillis(1).toNanos();
    static final long MAX_NANOS = Duration.ofMillis(50).toNanos();
    /** With a wake-up hint, the pause is only a safety net against a lost hint. */
    static final long HINTED_NANOS = Duration.ofMillis(500).toNanos();

    private long next = FIRST_NANOS;

    /**
     * @param hinted whether a wake-up hint is subscribed
     * @param holderExpiresIn the holder's remaining lease if known, else null
     * @return how long to pause before the next attempt
     */
    long pauseNanos(boolean hinted, Duration holderExpiresIn) {
        long pause;
        if (hinted) {
            pause = HINTED_NANOS;
        } else {
            pause = next / 2 + ThreadLocalRandom.current().nextLong(next / 2 + 1);
            next = Math.min(MAX_NANOS, next * 2);
        }
        if (holderExpiresIn != null) {
            pause = Math.min(pause, Math.max(holderExpiresIn.toNanos(), FIRST_NANOS));
        }
        return pause;
    }
}
