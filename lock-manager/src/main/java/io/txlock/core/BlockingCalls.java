package io.txlock.core;

import io.txlock.spi.Cancellation;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The attempts of one manager that block in the backend right now. A thread blocked in a JDBC call does not see
 * its interrupt, so while any such attempt is registered a watchdog looks at the callers' interrupt flags every
 * {@value #WATCH_MILLIS} ms and cancels the attempts of interrupted callers; closing the manager cancels them all.
 * A cancel is repeated at every look until the call returned, since a cancel that comes just before the call
 * started blocking may do nothing.
 */
final class BlockingCalls {

    private static final Logger log = LoggerFactory.getLogger(BlockingCalls.class);
    static final long WATCH_MILLIS = 10;
    private static final Runnable[] NO_ACTIONS = {};

    private final ScheduledExecutorService timers;
    private final Set<Call> blocked = ConcurrentHashMap.newKeySet();
    /** Written under this; volatile, so that a call that finds a look planned need not take the lock. */
    private volatile ScheduledFuture<?> watchdog;
    private volatile boolean closed;

    BlockingCalls(ScheduledExecutorService timers) {
        this.timers = timers;
    }

    /**
     * @param interruptible whether the caller's interrupt cancels the attempt (a {@code Lock.lock()} ignores it)
     * @return the cancellation of one attempt made on the calling thread
     */
    Call start(boolean interruptible) {
        return new Call(Thread.currentThread(), interruptible);
    }

    /** Cancels every blocked attempt, now and at every later registration. */
    void cancelAll() {
        closed = true;
        for (Call call : blocked) {
            call.cancel();
        }
    }

    /**
     * Sets the watchdog's next look, one-shot (a container's timer may run nothing else), while an attempt blocks. A look
     * already planned sees the attempts registered before it clears its plan, and plans the next while any is left.
     */
    private void watch() {
        if (watchdog == null) {
            planLook();
        }
    }

    private synchronized void planLook() {
        if (watchdog == null && !blocked.isEmpty()) {
            try {
                watchdog = timers.schedule(this::look, WATCH_MILLIS, TimeUnit.MILLISECONDS);
            } catch (RuntimeException closing) {
                log.debug("no watchdog for blocked attempts (the timers refused it: {}); close() still cancels them", closing.toString());
            }
        }
    }

    private void look() {
        for (Call call : blocked) {
            call.look();
        }
        synchronized (this) {
            watchdog = null;
        }
        watch();
    }

    /**
     * One attempt's cancellation: registered while the provider blocks, with one action per open registration (a
     * provider may open several, such as a statement's cancel and a pause's wake-up). Equal only to itself. The open
     * actions are an array replaced, under this call's monitor, at each registration and close (most attempts register
     * none: they allocate nothing for it); a cancel runs the array it reads.
     */
    final class Call extends RandomHashed implements Cancellation {
        private final Thread caller;
        private final boolean interruptible;
        private volatile Runnable[] actions = NO_ACTIONS;
        private volatile boolean cancelled;
        private volatile boolean abandoned;

        private Call(Thread caller, boolean interruptible) {
            this.caller = caller;
            this.interruptible = interruptible;
        }

        @Override
        public Registration onCancel(Runnable cancel) {
            synchronized (this) {
                Runnable[] open = actions;
                Runnable[] more = Arrays.copyOf(open, open.length + 1);
                more[open.length] = cancel;
                actions = more;
                blocked.add(this);
            }
            watch();
            look();
            return () -> close(cancel);
        }

        /** Closes one registration of {@code cancel}; the last one closed leaves the call unwatched. */
        private synchronized void close(Runnable cancel) {
            Runnable[] open = actions;
            for (int i = 0; i < open.length; i++) {
                if (Objects.equals(cancel, open[i])) {
                    Runnable[] fewer = open.length == 1 ? NO_ACTIONS : new Runnable[open.length - 1];
                    System.arraycopy(open, 0, fewer, 0, i);
                    System.arraycopy(open, i + 1, fewer, i, open.length - i - 1);
                    actions = fewer;
                    break;
                }
            }
            if (actions.length == 0) {
                blocked.remove(this);
            }
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        /** Cancels the attempt because its caller gave up on it (cancelled its future): no thread is interrupted. */
        void abandon() {
            abandoned = true;
            cancel();
        }

        /** @return whether the attempt was cancelled because its caller gave up on it */
        boolean abandoned() {
            return abandoned;
        }

        /** @return whether the attempt's caller was interrupted (and so the attempt cancelled, or to be) */
        boolean callerInterrupted() {
            return interruptible && caller.isInterrupted();
        }

        private void look() {
            if (cancelled || closed || callerInterrupted()) {
                cancel();
            }
        }

        private void cancel() {
            cancelled = true;
            for (Runnable a : actions) {
                try {
                    a.run();
                } catch (RuntimeException e) {
                    log.debug("cancelling a blocked attempt failed: {}", e.toString());
                }
            }
        }
    }
}
