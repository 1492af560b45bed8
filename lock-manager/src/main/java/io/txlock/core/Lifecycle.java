package io.txlock.core;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every piece of one manager shares: its id, its timers and workers, and whether it is closed. {@code closed}
 * is volatile and set once, by {@link #close()}; the rest is final.
 */
final class Lifecycle {

    private static final Logger log = LoggerFactory.getLogger(Lifecycle.class);

    final String instanceId;
    final ScheduledExecutorService timers;
    private final Executor workers;
    /** Whether {@link #shutDown()} stops {@link #timers} and {@link #workers}: only where this manager made them. */
    private final boolean ownsTimers;
    private final boolean ownsWorkers;
    private volatile boolean closed;

    /**
     * @param scheduler runs timers (and, without {@code executor}, the work too); null for a timer thread of its own
     * @param executor runs attempts, renewals and listeners; null for the scheduler's, else worker threads of its own
     */
    Lifecycle(String instanceId, ScheduledExecutorService scheduler, Executor executor) {
        this.instanceId = instanceId;
        this.ownsTimers = scheduler == null;
        if (ownsTimers) {
            ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, threads("timer"));
            timer.setRemoveOnCancelPolicy(true);
            this.timers = timer;
        } else {
            this.timers = scheduler;
        }
        this.ownsWorkers = executor == null && ownsTimers;
        this.workers = executor != null ? executor : ownsTimers ? Executors.newCachedThreadPool(threads("worker")) : scheduler;
    }

    boolean isClosed() {
        return closed;
    }

    /** @return true for the one call that closed it */
    synchronized boolean close() {
        if (closed) {
            return false;
        }
        closed = true;
        return true;
    }

    void ensureOpen() {
        if (closed) {
            throw closedError();
        }
    }

    IllegalStateException closedError() {
        return new IllegalStateException("lock manager " + instanceId + " is closed: build a new one");
    }

    /** Runs {@code task} on a worker; once the workers are shut down, on the calling thread. */
    void execute(Runnable task) {
        try {
            workers.execute(task);
        } catch (RejectedExecutionException e) {
            log.debug("lock manager closed, running a last task on the calling thread");
            task.run();
        }
    }

    /** Stops the timers and workers this manager made; waits up to 5 s for the workers' tasks under way. */
    void shutDown() {
        if (ownsTimers) {
            timers.shutdownNow();
        }
        if (ownsWorkers) {
            ExecutorService own = (ExecutorService) workers;
            own.shutdown();
            try {
                own.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private ThreadFactory threads(String role) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "txlock-" + instanceId + "-" + role + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
