package io.txlock.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The bench JVM's JIT compiler, as seen from a run: on 2 cores a way whose code is still being compiled in its
 * measured window pays for the compiler threads' CPU, so a run's warm-up goes on while the compiler is busy.
 */
final class Jit {

    /** The span over which the compiler's work is read. */
    static final Duration SPAN = Duration.ofMillis(500);
    /** The compiler is quiet when it compiled for less than this share of a span (summed over its threads). */
    static final double QUIET_SHARE = 0.05;

    private static final CompilationMXBean COMPILER = ManagementFactory.getCompilationMXBean();

    private Jit() {
    }

    /** @return the time the JIT compiler has spent compiling since the JVM started, in ms; -1 if not known */
    static long compiledMillis() {
        return COMPILER != null && COMPILER.isCompilationTimeMonitoringSupported() ? COMPILER.getTotalCompilationTime() : -1;
    }

    /**
     * Waits until the end of a run's warm-up, then goes on while the compiler was busy over the last span, at most
     * {@code atMost} longer.
     *
     * @param warmedUp when the warm-up ends ({@link System#nanoTime()}); the span before it is read too
     * @param atMost the longest the warm-up is extended
     * @return when the warm-up ended: {@code warmedUp}, or the end of the first quiet span after it, or the limit
     * @throws InterruptedException if interrupted meanwhile
     */
    static long warmUntilCompiled(long warmedUp, Duration atMost) throws InterruptedException {
        return warmUntilQuiet(warmedUp, atMost, Jit::compiledMillis, SPAN);
    }

    /**
     * {@link #warmUntilCompiled}, reading the compiler's work from {@code compiledMillis} over spans of {@code span}.
     *
     * @param compiledMillis the compiler's work so far in ms, -1 if not known (then the warm-up is not extended)
     */
    static long warmUntilQuiet(long warmedUp, Duration atMost, LongSupplier compiledMillis, Duration span) throws InterruptedException {
        Timing.sleepUntil(warmedUp - span.toNanos());
        long spanFrom = System.nanoTime();
        long before = compiledMillis.getAsLong();
        Timing.sleepUntil(warmedUp);
        long giveUp = warmedUp + atMost.toNanos();
        while (true) {
            long now = System.nanoTime();
            long after = compiledMillis.getAsLong();
            if (before < 0 || after < 0 || after - before < QUIET_SHARE * (now - spanFrom) / 1e6 || now >= giveUp) {
                return now;
            }
            spanFrom = now;
            before = after;
            Timing.sleepUntil(Math.min(now + span.toNanos(), giveUp));
        }
    }
}
