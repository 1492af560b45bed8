package io.txlock.core;

import io.txlock.LockHandle;
import io.txlock.LockTimeoutException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs a {@link Contender} from worker threads and timers, holding no thread while it waits: a wake-up runs a step
 * on a worker, a pause is a timer, and the end of the wait another. The caller's future completes with the
 * outcome; cancelling it abandons the contender.
 */
final class AsyncDriver implements Contender.Driver {

    private final Contender contender;
    private final Lifecycle lifecycle;
    private final CompletableFuture<LockHandle> future = new CompletableFuture<>();

    private AsyncDriver(Contender contender, Lifecycle lifecycle) {
        this.contender = contender;
        this.lifecycle = lifecycle;
    }

    /**
     * @param contender a new contender
     * @param waitNanos the caller's wait
     * @return the caller's future
     */
    static CompletableFuture<LockHandle> acquire(Contender contender, Lifecycle lifecycle, long waitNanos) {
        return new AsyncDriver(contender, lifecycle).start(waitNanos);
    }

    private CompletableFuture<LockHandle> start(long waitNanos) {
        if (contender.join(this) == Contender.Step.DONE) {
            future.complete(contender.handle());
            return future;
        }
        future.whenComplete((handle, failure) -> {
            if (failure != null) {
                contender.abandon();
            }
        });
        contender.wakeIfTurn();
        if (waitNanos < Contender.FOREVER_NANOS) {
            ScheduledFuture<?> timeout = lifecycle.timers.schedule(this::expire, waitNanos, TimeUnit.NANOSECONDS);
            future.whenComplete((handle, failure) -> timeout.cancel(false));
        }
        return future;
    }

    private void expire() {
        if (contender.expire()) {
            timedOut();
        }
    }

    /** Runs the contender's steps until it waits, or ends. */
    private void drive() {
        Contender.Step step = next();
        while (step == Contender.Step.ATTEMPT) {
            try {
                step = contender.attempt();
            } catch (RuntimeException e) {
                future.completeExceptionally(e);
                return;
            }
            if (step == Contender.Step.PAUSE) {
                step = next();
                if (step == Contender.Step.PAUSE) {
                    pause();
                    return;
                }
            }
        }
        switch (step) {
            case DONE -> {
                if (!future.complete(contender.handle())) {
                    contender.handle().close();
                }
            }
            case EXPIRED -> timedOut();
            case CLOSED -> future.completeExceptionally(contender.closedError());
            default -> {
            }
        }
    }

    private Contender.Step next() {
        contender.name.mutex.lock();
        try {
            return contender.next(System.nanoTime());
        } finally {
            contender.name.mutex.unlock();
        }
    }

    /** After a miss: drives again when the pause is over, unless woken before. */
    private void pause() {
        long pause;
        contender.name.mutex.lock();
        try {
            pause = contender.waitNanos(System.nanoTime());
        } finally {
            contender.name.mutex.unlock();
        }
        try {
            lifecycle.timers.schedule(this::wake, pause, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            future.completeExceptionally(contender.closedError());
        }
    }

    private void timedOut() {
        future.completeExceptionally(new LockTimeoutException(contender.name.name, contender.options.waitTime()));
    }

    @Override
    public void wake() {
        lifecycle.execute(this::drive);
    }
}
