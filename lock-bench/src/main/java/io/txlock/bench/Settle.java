package io.txlock.bench;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Lets the work a run leaves behind end before the next run begins, so that it does not fall into the next run's
 * window: the server's background work (InnoDB's purge of the rows a peer wrote, PostgreSQL's autovacuum) and the
 * bench JVM's garbage. Whichever way a scenario measures first after another then starts from the same quiet
 * machine as the others (without it, the strategy measured right after the peers showed a handoff p99 2 to 4 times
 * that of the next one, on MariaDB).
 */
final class Settle {

    /** The span over which the server's CPU is read. */
    static final Duration SPAN = Duration.ofMillis(200);
    /** The server is quiet when it used less than this share of one core over a span. */
    static final double QUIET_SHARE = 0.1;
    /** The longest a run waits for a quiet server; a server busy with other work is measured as it is. */
    static final Duration AT_MOST = Duration.ofSeconds(10);

    private Settle() {
    }

    /**
     * Collects the bench JVM's garbage, then waits for a quiet server.
     *
     * @param server the server's processes, or null where their CPU is not read
     * @return how long it waited for the server
     * @throws InterruptedException if interrupted meanwhile
     */
    static Duration beforeRun(ServerUsage server) throws InterruptedException {
        System.gc();
        if (server == null || server.pid() < 0) {
            return Duration.ZERO;
        }
        long pid = server.pid();
        return untilQuiet(() -> ProcStat.treeCpuNanos(pid).orElse(-1), SPAN, AT_MOST);
    }

    /**
     * @param cpuNanos the CPU the processes used so far, -1 once they cannot be read
     * @param span the span over which they must stay quiet
     * @param atMost the longest wait
     * @return how long it waited: until the processes used less than {@value #QUIET_SHARE} of a core over a span,
     *     could not be read, or {@code atMost} passed
     * @throws InterruptedException if interrupted meanwhile
     */
    static Duration untilQuiet(LongSupplier cpuNanos, Duration span, Duration atMost) throws InterruptedException {
        long begin = System.nanoTime();
        long giveUp = begin + atMost.toNanos();
        long before = cpuNanos.getAsLong();
        while (before >= 0 && System.nanoTime() < giveUp) {
            long from = System.nanoTime();
            Timing.sleepUntil(from + span.toNanos());
            long after = cpuNanos.getAsLong();
            if (after < 0 || after - before < QUIET_SHARE * (System.nanoTime() - from)) {
                break;
            }
            before = after;
        }
        return Duration.ofNanos(System.nanoTime() - begin);
    }
}
