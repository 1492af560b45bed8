package io.txlock.adapter;

import jakarta.resource.spi.work.Work;
import jakarta.resource.spi.work.WorkException;
import jakarta.resource.spi.work.WorkManager;
import java.util.List;
import java.util.Timer;
import java.util.TimerTask;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The lock manager's scheduler and executor ({@code LockManager.Builder.scheduler}), made of what the container's
 * {@code BootstrapContext} gives a resource adapter: work runs as {@link Work} on its {@link WorkManager}, timers on the
 * {@link Timer} it created. Timer tasks are the core's short bookkeeping (a wait's timeout, a sweep that hands due
 * renewals to the executor), so they run on the timer's thread; everything that may block runs on the WorkManager.
 * Periodic scheduling is not offered: the core does not use it.
 */
final class ContainerExecutor extends AbstractExecutorService implements ScheduledExecutorService {

    private static final int PURGE_EVERY = 256;

    private final WorkManager workManager;
    private final Timer timer;
    private final Object monitor = new Object();
    private int running;
    private boolean shutdown;
    private final AtomicInteger cancelled = new AtomicInteger();

    /**
     * @param workManager the container's WorkManager
     * @param timer a timer from {@code BootstrapContext.createTimer()}; {@link #shutdown()} cancels it
     */
    ContainerExecutor(WorkManager workManager, Timer timer) {
        this.workManager = workManager;
        this.timer = timer;
    }

    @Override
    public void execute(Runnable command) {
        synchronized (monitor) {
            if (shutdown) {
                throw new RejectedExecutionException("the txlock resource adapter is stopped");
            }
            running++;
        }
        try {
            workManager.scheduleWork(new Task(command));
        } catch (WorkException | RuntimeException e) {
            finished();
            throw new RejectedExecutionException("the container's WorkManager refused txlock's work: " + e, e);
        }
    }

    private void finished() {
        synchronized (monitor) {
            running--;
            monitor.notifyAll();
        }
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        TimedTask<Object> task = new TimedTask<>(() -> {
            command.run();
            return null;
        }, System.nanoTime() + unit.toNanos(Math.max(0, delay)));
        schedule(task, unit.toMillis(Math.max(0, delay)));
        return task;
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        TimedTask<V> task = new TimedTask<>(callable, System.nanoTime() + unit.toNanos(Math.max(0, delay)));
        schedule(task, unit.toMillis(Math.max(0, delay)));
        return task;
    }

    private void schedule(TimedTask<?> task, long delayMillis) {
        synchronized (monitor) {
            if (shutdown) {
                throw new RejectedExecutionException("the txlock resource adapter is stopped");
            }
            try {
                timer.schedule(task.timerTask, delayMillis);
            } catch (IllegalStateException cancelled) {
                throw new RejectedExecutionException("the txlock resource adapter's timer is cancelled", cancelled);
            }
        }
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        throw new UnsupportedOperationException("txlock's container executor runs one-shot timers only");
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("txlock's container executor runs one-shot timers only");
    }

    /** Refuses new work and cancels the timer (and with it every pending timer task); running work goes on. */
    @Override
    public void shutdown() {
        synchronized (monitor) {
            shutdown = true;
        }
        timer.cancel();
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown();
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        synchronized (monitor) {
            return shutdown;
        }
    }

    @Override
    public boolean isTerminated() {
        synchronized (monitor) {
            return shutdown && running == 0;
        }
    }

    /** Waits until the work handed to the WorkManager has finished. */
    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (monitor) {
            while (running > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(monitor, left);
            }
            return shutdown;
        }
    }

    /** One piece of the lock manager's work, as the WorkManager runs it. */
    private final class Task implements Work {
        private final Runnable command;

        Task(Runnable command) {
            this.command = command;
        }

        @Override
        public void run() {
            try {
                command.run();
            } finally {
                finished();
            }
        }

        @Override
        public void release() {
            // the core's tasks end on their own: waits are bounded, backend calls time out
        }
    }

    /** A one-shot timer task with the {@link ScheduledFuture} view the core keeps to cancel it. */
    private final class TimedTask<V> implements ScheduledFuture<V> {
        private final java.util.concurrent.CompletableFuture<V> result = new java.util.concurrent.CompletableFuture<>();
        private final long atNanos;
        final TimerTask timerTask;

        TimedTask(Callable<V> callable, long atNanos) {
            this.atNanos = atNanos;
            this.timerTask = new TimerTask() {
                @Override
                public void run() {
                    if (result.isDone()) {
                        return;
                    }
                    try {
                        result.complete(callable.call());
                    } catch (Throwable e) {
                        result.completeExceptionally(e);
                    }
                }
            };
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(atNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelledNow = result.cancel(false);
            if (cancelledNow) {
                timerTask.cancel();
                if (cancelled.incrementAndGet() % PURGE_EVERY == 0) {
                    timer.purge();
                }
            }
            return cancelledNow;
        }

        @Override
        public boolean isCancelled() {
            return result.isCancelled();
        }

        @Override
        public boolean isDone() {
            return result.isDone();
        }

        @Override
        public V get() throws InterruptedException, ExecutionException {
            return result.get();
        }

        @Override
        public V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
            return result.get(timeout, unit);
        }
    }
}
