package io.txlock.bench;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The order numbers clients submit: increasing new numbers (as the seed's {@code order_no}), and, for a share
 * of submissions, a repeat of one of the last 64 numbers handed out, so that a duplicate usually arrives while
 * its original is still in flight (a double click, a retried request).
 */
final class OrderStream {

    static final long FIRST = 1_000_000;
    private static final int RECENT = 64;

    private final double duplicates;
    private final AtomicLong next = new AtomicLong(FIRST);
    private final AtomicLongArray recent = new AtomicLongArray(RECENT);

    /** @param duplicates the share of submissions that repeat a recent order, 0 to 1 */
    OrderStream(double duplicates) {
        this.duplicates = duplicates;
    }

    /**
     * @param random the client's random
     * @return the order number to submit next
     */
    long next(SplittableRandom random) {
        if (random.nextDouble() < duplicates) {
            long repeat = recent.get(random.nextInt(RECENT));
            if (repeat != 0) {
                return repeat;
            }
        }
        long n = next.getAndIncrement();
        recent.set((int) (n % RECENT), n);
        return n;
    }

    /** @return the first number after every number handed out so far */
    long end() {
        return next.get();
    }
}
