package io.txlock.jdbc;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reaper of a lock table, for the JDBC and the JPA provider alike: a daemon thread that deletes rows whose lease
 * ran out, every period after a random first delay (so that the nodes of a cluster spread their runs), in batches
 * that skip locked rows, so that it is safe on every node at once.
 *
 * <p><b>Internal to txlock.</b> Not an API: it may change in any release.
 */
public final class LockTableReaper implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LockTableReaper.class);

    /** The default period of a provider's reaper. */
    static final Duration DEFAULT_PERIOD = Duration.ofMinutes(1);

    /** The default number of rows a reaper deletes per transaction. */
    static final int DEFAULT_BATCH = 500;

    private final ScheduledExecutorService thread;

    private LockTableReaper(String threadName, Duration period, String table, IntSupplier reapExpired) {
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        long millis = period.toMillis();
        thread.scheduleWithFixedDelay(() -> reapQuietly(table, reapExpired), ThreadLocalRandom.current().nextLong(millis) + 1,
                millis, TimeUnit.MILLISECONDS);
    }

    /**
     * @param threadName the reaper thread's name
     * @param period a {@link #validPeriod valid} period; zero for no reaper
     * @param table the lock table, for the log
     * @param reapExpired deletes every expired row, returning how many
     * @return the running reaper, or null if {@code period} is zero
     */
    public static LockTableReaper start(String threadName, Duration period, String table, IntSupplier reapExpired) {
        return period.isZero() ? null : new LockTableReaper(threadName, period, table, reapExpired);
    }

    /**
     * @param reapBatch deletes up to {@code batch} expired rows in one transaction, returning how many
     * @param batch the most rows per transaction
     * @return the rows deleted by transactions of {@code batch} rows, run until one deletes fewer
     */
    public static int reapAll(IntSupplier reapBatch, int batch) {
        int total = 0;
        while (true) {
            int deleted = reapBatch.getAsInt();
            total += deleted;
            if (deleted < batch) {
                return total;
            }
        }
    }

    /**
     * @param period how often the reaper runs
     * @return {@code period}
     * @throws IllegalArgumentException unless it is zero (no reaper) or from 1 ms to 365 days
     */
    static Duration validPeriod(Duration period) {
        if (period == null || period.isNegative() || !period.isZero() && period.compareTo(Duration.ofMillis(1)) < 0
                || period.compareTo(Duration.ofDays(365)) > 0) {
            throw new IllegalArgumentException("reaperPeriod must be zero (no reaper) or from 1 ms to 365 days, was " + period);
        }
        return period;
    }

    /**
     * @param batch rows per transaction
     * @return {@code batch}
     * @throws IllegalArgumentException unless it is from 1 to 100000
     */
    static int validBatch(int batch) {
        if (batch < 1 || batch > 100_000) {
            throw new IllegalArgumentException("reaperBatchSize must be between 1 and 100000, was " + batch);
        }
        return batch;
    }

    private static void reapQuietly(String table, IntSupplier reapExpired) {
        try {
            int n = reapExpired.getAsInt();
            if (n > 0) {
                log.debug("reaped {} expired rows of {}", n, table);
            }
        } catch (RuntimeException e) {
            log.warn("reaping {} failed, will retry: {}", table, e.toString());
        }
    }

    /** Stops the thread. */
    @Override
    public void close() {
        thread.shutdownNow();
    }
}
