package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class JitTest {

    private static final Duration SPAN = Duration.ofMillis(20);

    @Test
    void aQuietCompilerEndsTheWarmUpOnTime() throws Exception {
        AtomicInteger reads = new AtomicInteger();
        long warmedUp = System.nanoTime() + SPAN.toNanos() * 2;

        long ended = Jit.warmUntilQuiet(warmedUp, Duration.ofSeconds(60), () -> {
            reads.incrementAndGet();
            return 1_000;
        }, SPAN);

        assertThat(reads).as("one span before the planned end, read at both ends").hasValue(2);
        assertThat(ended).isGreaterThanOrEqualTo(warmedUp);
    }

    @Test
    void aBusyCompilerExtendsTheWarmUpUntilItIsQuiet() throws Exception {
        AtomicInteger reads = new AtomicInteger();
        long warmedUp = System.nanoTime() + SPAN.toNanos();

        Jit.warmUntilQuiet(warmedUp, Duration.ofSeconds(60), () -> reads.incrementAndGet() <= 4 ? reads.get() * 1_000L : 4_000L, SPAN);

        assertThat(reads).as("busy over the span before the end and the next two, quiet over the third").hasValue(5);
    }

    @Test
    void aCompilerThatNeverQuietensExtendsTheWarmUpByTheLimitOnly() throws Exception {
        AtomicInteger reads = new AtomicInteger();
        long warmedUp = System.nanoTime();
        Duration limit = SPAN.multipliedBy(5);

        long ended = Jit.warmUntilQuiet(warmedUp, limit, () -> reads.incrementAndGet() * 1_000_000L, SPAN);

        assertThat(ended).isGreaterThanOrEqualTo(warmedUp + limit.toNanos());
        assertThat(reads.get()).isBetween(3, 8);
    }

    @Test
    void anUnknownCompilerDoesNotExtendTheWarmUp() throws Exception {
        AtomicInteger reads = new AtomicInteger();

        Jit.warmUntilQuiet(System.nanoTime(), Duration.ofSeconds(60), () -> {
            reads.incrementAndGet();
            return -1;
        }, SPAN);

        assertThat(reads).hasValue(2);
    }
}
