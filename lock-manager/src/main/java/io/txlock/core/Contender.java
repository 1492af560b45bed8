package io.txlock.core;

import io.txlock.LockInterruptedException;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.spi.Attempt;
import io.txlock.spi.Grant;
import io.txlock.spi.LockRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CancellationException;

/**
 * One caller's acquire of one name: the one attempt step of every acquire, as a state machine that a driver runs,
 * on the caller's thread ({@link BlockingDriver}) or from workers and timers ({@link AsyncDriver}).
 *
 * <pre>
 * QUEUED ──its turn──▶ ATTEMPTING ──granted──▶ GRANTED
 *                      ATTEMPTING ──missed───▶ PAUSED ──woken, or its pause over──▶ ATTEMPTING
 * QUEUED, PAUSED ──its owner holds the name here──▶ GRANTED (re-entered)
 * QUEUED, ATTEMPTING, PAUSED ──wait over, cancelled, failed, closed──▶ ABANDONED
 * </pre>
 *
 * <p>It is its turn when it heads its name's local queue and no local owner holds the name: only then does it talk
 * to the backend. A grant that arrives once it was abandoned (an async caller cancelled), or for an attempt that
 * was cancelled (its caller interrupted, the manager closed), is given back. Abandoning it while it attempts
 * cancels the attempt, so that one blocked in the backend ends without sitting out the rest of its wait.
 *
 * <p>Guards: its state, {@code woken} and {@code pauseUntil} are guarded by its name's mutex ({@link LocalName}).
 * It holds one reference to its name from its creation until it is GRANTED (the reference passes to the holding, or
 * is given back on reentry) or ABANDONED (given back). Its handle and backoff are used by the thread of the step
 * that runs (one at a time, as ATTEMPTING is entered by one step only).
 */
final class Contender {

    enum State { QUEUED, ATTEMPTING, PAUSED, GRANTED, ABANDONED }

    /** What a driver does next. */
    enum Step {
        /** Its turn came: run {@link #attempt()}. */
        ATTEMPT,
        /** Not its turn: wait until woken, or the wait is over. */
        WAIT,
        /** Its turn, after a miss: wait until woken, or {@link #waitNanos}. */
        PAUSE,
        /** Granted or re-entered: {@link #handle()}. */
        DONE,
        /** The wait is over, without a grant. */
        EXPIRED,
        /** The manager closed. */
        CLOSED,
        /** Already ended, its outcome told: nothing to do. */
        OVER
    }

    /** How a driver learns that it may be its turn. */
    interface Driver {
        /** Called with the name's mutex held, while the contender waits (QUEUED or PAUSED). */
        void wake();
    }

    /** What every contender of one manager works with. */
    record Context(LocalNames names, Holdings holdings, Backend backend, BlockingCalls blocking, Lifecycle lifecycle) {
    }

    /** Waits longer than this (about 73 years) are waits until granted; it keeps deadline arithmetic exact. */
    static final long FOREVER_NANOS = Long.MAX_VALUE / 4;
    private static final Duration FOREVER = Duration.ofNanos(FOREVER_NANOS);

    private final Context context;
    final LocalName name;
    final Caller caller;
    final LockOptions options;
    private final long deadline;
    /** Whether the caller's interrupt ends the wait (a blocking caller that asked for it). */
    private final boolean interruptible;
    /** Made at the first miss: most acquires never miss. */
    private Backoff backoff;
    private Driver driver;
    private State state = State.QUEUED;
    /** The next in its name's queue ({@link LocalName}), guarded by its name's mutex. */
    Contender next;
    /** Set by {@link #wake()}: the next attempt does not wait for its pause to end. */
    private boolean woken;
    /** {@link System#nanoTime()} before which it pauses, unless woken. */
    private long pauseUntil;
    private Handle handle;
    /** The cancellation of the attempt that runs now, if any: an abandon cancels it (written by the attempting step). */
    private volatile BlockingCalls.Call inFlight;
    /**
     * Set by an abandon before it reads {@link #inFlight}; read by the attempting step after it wrote it: an abandon
     * that comes before the attempt registered its call is seen by the attempt, one that comes after sees the call.
     */
    private volatile boolean abandoning;

    /**
     * @param name the name, with a reference for this contender
     * @param calledNanos when the caller asked ({@link System#nanoTime()}); its wait counts from then
     */
    Contender(Context context, LocalName name, Caller caller, LockOptions options, long calledNanos, boolean interruptible) {
        this.context = context;
        this.name = name;
        this.caller = caller;
        this.options = options;
        this.deadline = calledNanos + waitNanos(options.waitTime());
        this.interruptible = interruptible;
        this.pauseUntil = calledNanos;
    }

    /** @return the wait in nanoseconds, {@link #FOREVER_NANOS} for any wait that long or longer */
    static long waitNanos(Duration wait) {
        return wait.compareTo(FOREVER) >= 0 ? FOREVER_NANOS : wait.toNanos();
    }

    /**
     * Joins the name's local queue, or re-enters at once a holding of the same owner.
     *
     * @return DONE (re-entered) or WAIT (queued)
     */
    Step join(Driver driver) {
        this.driver = driver;
        name.mutex.lock();
        try {
            if (reenter()) {
                return Step.DONE;
            }
            name.enqueue(this);
            return Step.WAIT;
        } finally {
            name.mutex.unlock();
        }
    }

    /** With the name's mutex held: the next step, and the move it makes (to ATTEMPTING, or GRANTED on reentry). */
    Step next(long now) {
        if (state == State.GRANTED || state == State.ABANDONED || state == State.ATTEMPTING) {
            return state == State.ATTEMPTING ? Step.WAIT : Step.OVER;
        }
        if (context.lifecycle().isClosed()) {
            return Step.CLOSED;
        }
        if (reenter()) {
            return Step.DONE;
        }
        boolean turn = name.isTurnOf(this);
        if (turn && (woken || now - pauseUntil >= 0)) {
            woken = false;
            state = State.ATTEMPTING;
            return Step.ATTEMPT;
        }
        if (deadline - now <= 0) {
            return Step.EXPIRED;
        }
        return turn ? Step.PAUSE : Step.WAIT;
    }

    /** With the name's mutex held: the longest a WAIT or a PAUSE found at {@code now} lasts, unless woken. */
    long waitNanos(long now) {
        long left = deadline - now;
        return name.isTurnOf(this) ? Math.min(left, pauseUntil - now) : left;
    }

    /** @return the handle of a contender that reached DONE, for the driver that saw it */
    Handle handle() {
        return handle;
    }

    /** With the name's mutex held: re-enters a usable holding of the same owner, if there is one. */
    private boolean reenter() {
        Holding holding = name.reentrant(caller);
        if (holding == null) {
            return false;
        }
        name.leave(this);
        handle = context.holdings().reenter(holding);
        state = State.GRANTED;
        // the holding keeps the name, so this is never the last reference
        context.names().unref(name);
        return true;
    }

    /** Called by the name, with its mutex held: it may be this contender's turn. */
    void wake() {
        woken = true;
        if (state == State.QUEUED || state == State.PAUSED) {
            driver.wake();
        }
    }

    /** Wakes the contender if it heads its queue, so that a driver that does not look on its own starts it. */
    void wakeIfTurn() {
        name.mutex.lock();
        try {
            if (name.isTurnOf(this)) {
                wake();
            }
        } finally {
            name.mutex.unlock();
        }
    }

    /**
     * The attempt step, after {@link #next} moved to ATTEMPTING: one call of the backend, bounded by what is left of
     * the wait where the provider blocks. If it throws, the contender is abandoned.
     *
     * @return DONE (granted: {@link #handle()}), PAUSE (missed: ask {@link #next} again), EXPIRED (missed, and
     *     the wait is over) or OVER (granted after it was abandoned: the grant was given back)
     */
    Step attempt() {
        try {
            if (interruptible && Thread.currentThread().isInterrupted()) {
                throw interrupted(name.name, null);
            }
            long start = System.nanoTime();
            Instant wallStart = Instant.now();
            GrantEvents events = new GrantEvents(context.holdings());
            BlockingCalls.Call call = context.blocking().start(interruptible);
            inFlight = call;
            if (abandoning) {
                call.abandon();
            }
            Attempt attempt = send(request(start, events, call), call);
            if (attempt.isGranted()) {
                return install(attempt.grant(), start, wallStart, events);
            }
            return missed(attempt);
        } catch (RuntimeException | Error e) {
            abandon();
            throw e;
        } finally {
            inFlight = null;
        }
    }

    private LockRequest request(long start, GrantEvents events, BlockingCalls.Call call) {
        long block = context.backend().provider.blocksWhileWaiting() ? Math.max(0, deadline - start) : 0;
        return new LockRequest(name.name, caller.owner(), options.lease(), Duration.ofNanos(block),
                caller.scope() == LockScope.TRANSACTION, events, call);
    }

    /**
     * One call of the backend. One that was cancelled (its caller interrupted, or the manager closed while it blocked
     * in the backend) ends with that news, and a grant it got all the same is given back.
     */
    private Attempt send(LockRequest request, BlockingCalls.Call call) {
        Attempt attempt;
        try {
            attempt = context.backend().tryAcquire(request);
        } catch (RuntimeException e) {
            if (cancelled(call)) {
                throw cancellation(call, e);
            }
            throw e;
        }
        if (cancelled(call)) {
            if (attempt.isGranted()) {
                context.backend().giveBack(attempt.grant(), context.lifecycle().isClosed() ? "lock manager closed"
                        : call.abandoned() ? "acquire cancelled by its caller" : "caller interrupted");
            }
            throw cancellation(call, null);
        }
        return attempt;
    }

    private boolean cancelled(BlockingCalls.Call call) {
        return call.isCancelled() || call.callerInterrupted() || context.lifecycle().isClosed();
    }

    private RuntimeException cancellation(BlockingCalls.Call call, RuntimeException cause) {
        boolean closed = context.lifecycle().isClosed();
        if (call.abandoned() && !closed) {
            CancellationException e = new CancellationException("the acquire of '" + name.name + "' was cancelled by its caller");
            e.initCause(cause);
            return e;
        }
        RuntimeException e = closed ? context.lifecycle().closedError() : interrupted(name.name, cause);
        if (closed && cause != null) {
            e.addSuppressed(cause);
        }
        return e;
    }

    /** @return the caller's news that it was interrupted; its interrupt flag stays set */
    static LockInterruptedException interrupted(String name, RuntimeException cause) {
        InterruptedException interrupt = new InterruptedException("the waiting thread was interrupted");
        if (cause != null) {
            interrupt.initCause(cause);
        }
        Thread.currentThread().interrupt();
        return new LockInterruptedException(name, interrupt);
    }

    /**
     * Installs a grant as the name's holding, unless the contender was abandoned meanwhile or the manager closed:
     * then the grant is given back.
     */
    private Step install(Grant grant, long start, Instant wallStart, GrantEvents events) {
        Holding holding = context.holdings().start(name, caller, options, grant, start, wallStart);
        boolean open;
        boolean mine;
        name.mutex.lock();
        try {
            open = !context.lifecycle().isClosed();
            mine = open && state == State.ATTEMPTING;
            if (mine) {
                state = State.GRANTED;
                context.holdings().occupy(this, holding);
            }
        } finally {
            name.mutex.unlock();
        }
        if (!mine) {
            context.backend().giveBack(grant, open ? "request withdrawn" : "lock manager closed");
            if (!open) {
                throw context.lifecycle().closedError();
            }
            return Step.OVER;
        }
        handle = context.holdings().bind(holding, options.lease(), events);
        return Step.DONE;
    }

    /** Pauses after a miss: at once after a first subscription to wake-up hints, else by the backoff. */
    private Step missed(Attempt attempt) {
        if (deadline - System.nanoTime() <= 0) {
            abandon();
            return Step.EXPIRED;
        }
        boolean firstMiss = context.names().subscribeOnce(name);
        if (backoff == null) {
            backoff = new Backoff();
        }
        long pause = firstMiss ? 0 : backoff.pauseNanos(context.names().hinted(name), attempt.retryAfter());
        name.mutex.lock();
        try {
            if (state != State.ATTEMPTING) {
                return Step.OVER;
            }
            state = State.PAUSED;
            pauseUntil = System.nanoTime() + pause;
            return Step.PAUSE;
        } finally {
            name.mutex.unlock();
        }
    }

    /**
     * The async wait is over. An attempt that is running, about to run (its turn came and it was woken) or done
     * decides instead, so that even a zero wait gets its one attempt, as in {@code tryAcquire}.
     *
     * @return whether the caller is to be told it timed out
     */
    boolean expire() {
        name.mutex.lock();
        try {
            return state != State.ATTEMPTING && state != State.GRANTED && state != State.ABANDONED
                    && !(woken && name.isTurnOf(this));
        } finally {
            name.mutex.unlock();
        }
    }

    /** Timed out, cancelled, failed or closed: leaves the queue and gives back the reference, once. */
    void abandon() {
        BlockingCalls.Call attempting;
        name.mutex.lock();
        try {
            if (state == State.GRANTED || state == State.ABANDONED) {
                return;
            }
            abandoning = true;
            attempting = state == State.ATTEMPTING ? inFlight : null;
            state = State.ABANDONED;
            name.leave(this);
        } finally {
            name.mutex.unlock();
        }
        if (attempting != null) {
            attempting.abandon();
        }
        context.names().unref(name);
    }

    IllegalStateException closedError() {
        return context.lifecycle().closedError();
    }
}
