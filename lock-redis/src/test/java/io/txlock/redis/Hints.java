package io.txlock.redis;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the wake-up hints of one subscription. The first is the subscription's confirmation (the provider
 * subscribes without waiting, then wakes its waiters once the channel is live); the later ones are releases.
 */
final class Hints implements Runnable {

    private final AtomicInteger count = new AtomicInteger();

    @Override
    public void run() {
        count.incrementAndGet();
    }

    int count() {
        return count.get();
    }

    /** Waits until the channel is live: a release published from now on is delivered. */
    void awaitConfirmed() {
        awaitMoreThan(0, "subscription confirmed");
    }

    /** Waits for a hint after the first {@code seen}. */
    void awaitMoreThan(int seen, String what) {
        await(what).atMost(Duration.ofSeconds(15)).until(() -> count.get() > seen);
    }
}
