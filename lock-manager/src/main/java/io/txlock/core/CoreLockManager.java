package io.txlock.core;

import io.txlock.LockBackendException;
import io.txlock.LockException;
import io.txlock.LockHandle;
import io.txlock.LockHealth;
import io.txlock.LockInfo;
import io.txlock.LockInterruptedException;
import io.txlock.LockManager;
import io.txlock.LockNotHeldException;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.LockTimeoutException;
import io.txlock.core.LockMetrics.Acquire;
import io.txlock.core.LockMetrics.Lost;
import io.txlock.core.LockMetrics.Renewal;
import io.txlock.spi.Attempt;
import io.txlock.spi.CallerTransaction;
import io.txlock.spi.Grant;
import io.txlock.spi.LockOwner;
import io.txlock.spi.LockProvider;
import io.txlock.spi.LockRequest;
import io.txlock.spi.TransactionSupport;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one implementation of {@link LockManager}: reentry, local FIFO queues, waiting, transaction binding,
 * renewal and loss detection, for every {@link LockProvider}. Use {@link LockManager#builder}.
 */
public final class CoreLockManager implements LockManager {

    private static final Logger log = LoggerFactory.getLogger(CoreLockManager.class);
    private static final AtomicLong THREAD_SEQUENCE = new AtomicLong();
    private static final ThreadLocal<ThreadKey> THREAD_KEY =
            ThreadLocal.withInitial(() -> new ThreadKey(THREAD_SEQUENCE.incrementAndGet()));
    private static final SecureRandom RANDOM = new SecureRandom();

    private final LockProvider provider;
    private final LockOptions defaults;
    private final TransactionSupport transactions;
    private final String host;
    private final String instanceId;
    private final ConcurrentHashMap<String, NameState> states = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timers;
    private final java.util.concurrent.Executor workers;
    /** Whether {@link #close()} shuts {@link #timers} and {@link #workers} down: only when this manager made them. */
    private final boolean ownsTimers;
    private final boolean ownsWorkers;
    private final LeaseTimers leaseTimers;
    private final BlockingCalls blocking;
    private final java.util.concurrent.atomic.LongAdder renewalFailures = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder lostLocks = new java.util.concurrent.atomic.LongAdder();
    private final LockMetrics metrics;
    /** The calling thread as the owner of LEASE-scoped locks: made once per thread, not at every acquire. */
    private final ThreadLocal<Caller> threadCaller = ThreadLocal.withInitial(this::threadOwner);
    private volatile boolean closed;

    /**
     * Use {@link LockManager#builder(LockProvider)}.
     *
     * @param provider the backend
     * @param defaults options where a call gives none
     * @param transactions how to find the caller's transaction
     * @param host the host name written as owner
     * @param metrics where outcomes are reported; {@link LockMetrics#none()} for nowhere
     */
    public CoreLockManager(LockProvider provider, LockOptions defaults, TransactionSupport transactions, String host,
            LockMetrics metrics) {
        this(provider, defaults, transactions, host, metrics, null, null);
    }

    /**
     * Use {@link LockManager#builder(LockProvider)}.
     *
     * @param provider the backend
     * @param defaults options where a call gives none
     * @param transactions how to find the caller's transaction
     * @param host the host name written as owner
     * @param metrics where outcomes are reported; {@link LockMetrics#none()} for nowhere
     * @param scheduler runs timers (and, without {@code executor}, the work too); null for a timer thread of its own
     * @param executor runs attempts, renewals and listeners; null for the scheduler's, else worker threads of its own
     */
    public CoreLockManager(LockProvider provider, LockOptions defaults, TransactionSupport transactions, String host,
            LockMetrics metrics, ScheduledExecutorService scheduler, java.util.concurrent.Executor executor) {
        this.provider = provider;
        this.metrics = metrics;
        this.defaults = defaults;
        this.transactions = transactions;
        this.host = host;
        this.instanceId = Long.toUnsignedString(RANDOM.nextLong() >>> 2, 36);
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
        this.leaseTimers = new LeaseTimers(timers, this::execute);
        this.blocking = new BlockingCalls(timers);
    }

    /** @return this host's name, or "localhost" if it cannot be found */
    public static String localHostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "localhost";
        }
    }

    @Override
    public LockHandle acquire(String name) {
        return acquire(name, defaults);
    }

    @Override
    public LockHandle acquire(String name, LockOptions options) {
        Handle handle = acquireSync(name, options, true);
        if (handle == null) {
            throw new LockTimeoutException(name, options.waitTime());
        }
        return handle;
    }

    @Override
    public Optional<LockHandle> tryAcquire(String name) {
        return tryAcquire(name, defaults.withWait(Duration.ZERO));
    }

    @Override
    public Optional<LockHandle> tryAcquire(String name, Duration wait) {
        return tryAcquire(name, defaults.withWait(wait));
    }

    @Override
    public Optional<LockHandle> tryAcquire(String name, LockOptions options) {
        return Optional.ofNullable(acquireSync(name, options, true));
    }

    @Override
    public CompletionStage<LockHandle> acquireAsync(String name) {
        return acquireAsync(name, defaults);
    }

    @Override
    public CompletionStage<LockHandle> acquireAsync(String name, LockOptions options) {
        ensureOpen();
        LockNames.validate(name);
        requireOptions(options);
        Caller caller = caller(options);
        if (caller.scope() == LockScope.TRANSACTION && provider.joinsCallerTransaction()) {
            throw new IllegalStateException("acquireAsync cannot lock '" + name + "' in the caller's transaction with "
                    + provider.describe() + ": its SQL must run on the caller's thread. Use acquire(), or LockScope.LEASE");
        }
        long called = System.nanoTime();
        LockMetrics metrics = this.metrics.acquireStarted(name, caller.scope());
        NameState state = ref(name);
        AsyncWaiter waiter = new AsyncWaiter(caller, options, state, called);
        Handle reentry = null;
        state.mutex.lock();
        try {
            Holding reentered = state.reentrant(caller);
            if (reentered != null) {
                waiter.settled = true;
                unref(state);
                reentry = reenter(reentered);
            } else {
                state.enqueue(waiter);
            }
        } finally {
            state.mutex.unlock();
        }
        if (reentry != null) {
            metrics.acquireEnded(caller.scope(), called, Acquire.REENTERED);
            return CompletableFuture.completedFuture(reentry);
        }
        waiter.future.whenComplete((handle, failure) -> {
            if (failure != null) {
                waiter.abandon();
            }
            metrics.acquireEnded(caller.scope(), called, outcome((Handle) handle, failure));
        });
        state.mutex.lock();
        try {
            if (state.isTurnOf(waiter)) {
                waiter.wake();
            }
        } finally {
            state.mutex.unlock();
        }
        long waitNanos = waitNanos(options.waitTime());
        if (waitNanos < FOREVER_NANOS) {
            java.util.concurrent.ScheduledFuture<?> timeout = timers.schedule(waiter::expire, waitNanos, TimeUnit.NANOSECONDS);
            waiter.future.whenComplete((handle, failure) -> timeout.cancel(false));
        }
        return waiter.future;
    }

    /**
     * Asks the backend; where this manager holds the lock, its own knowledge fills in what the backend cannot
     * show (the hold count, and the owner of a row lock held by a still open transaction).
     */
    @Override
    public Optional<LockInfo> inspect(String name) {
        ensureOpen();
        LockNames.validate(name);
        Optional<LockInfo> seen = callProvider(() -> provider.inspect(name), "inspect '" + name + "'");
        NameState state = states.get(name);
        if (state == null) {
            return seen;
        }
        state.mutex.lock();
        try {
            Holding h = state.holding;
            if (h == null || !h.isUsable()) {
                return seen;
            }
            long token = h.grant.fencingToken();
            if (seen.isPresent() && seen.get().fencingToken() != token && seen.get().fencingToken() != 0) {
                return seen;
            }
            return Optional.of(new LockInfo(name, h.caller.owner().host(), h.caller.owner().id(), token,
                    seen.map(LockInfo::since).orElse(h.since), h.expiresAt(), Math.max(1, h.holds)));
        } finally {
            state.mutex.unlock();
        }
    }

    @Override
    public LockHealth health() {
        ensureOpen();
        String problem = null;
        try {
            callProvider(() -> provider.inspect(HEALTH_PROBE), "inspect '" + HEALTH_PROBE + "'");
        } catch (RuntimeException e) {
            problem = e.toString();
        }
        int held = 0;
        int waiting = 0;
        for (NameState state : states.values()) {
            state.mutex.lock();
            try {
                held += state.holding != null ? 1 : 0;
                waiting += state.waiting();
            } finally {
                state.mutex.unlock();
            }
        }
        return new LockHealth(problem == null, problem, held, waiting, renewalFailures.sum(), lostLocks.sum());
    }

    /** The name {@link #health()} reads; nobody needs to hold it. */
    static final String HEALTH_PROBE = "txlock:health-probe";

    @Override
    public Lock asLock(String name) {
        return new LockView(this, LockNames.validate(name));
    }

    @Override
    public LockOptions defaults() {
        return defaults;
    }

    @Override
    public String instanceId() {
        return instanceId;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        blocking.cancelAll();
        List<Holding> held = new ArrayList<>();
        for (NameState state : states.values()) {
            state.mutex.lock();
            try {
                Holding h = state.holding;
                if (h != null && h.scope() == LockScope.LEASE && h.end(Holding.Status.RELEASING, null)) {
                    held.add(h);
                }
                state.wakeAll();
            } finally {
                state.mutex.unlock();
            }
        }
        for (Holding h : held) {
            try {
                releaseGrant(h);
            } catch (RuntimeException e) {
                log.warn("could not release {} while closing: {}", h, e.toString());
            }
        }
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
        provider.close();
    }

    /** @return how many names this manager keeps state for: names held or waited for, none other */
    int trackedNames() {
        return states.size();
    }

    /** @return how many lease timers are pending */
    int pendingLeaseTimers() {
        return leaseTimers.pending();
    }

    @Override
    public String toString() {
        return "LockManager[" + instanceId + " on " + provider.describe() + "]";
    }

    // ---- acquiring

    /** @return the handle, or null if not granted within the wait */
    private Handle acquireSync(String name, LockOptions options, boolean interruptible) {
        ensureOpen();
        LockNames.validate(name);
        requireOptions(options);
        Caller caller = caller(options);
        long called = System.nanoTime();
        LockMetrics metrics = this.metrics.acquireStarted(name, caller.scope());
        Handle handle;
        try {
            handle = awaitGrant(name, options, caller, called, interruptible);
        } catch (LockInterruptedException e) {
            metrics.acquireEnded(caller.scope(), called, Acquire.INTERRUPTED);
            throw e;
        } catch (RuntimeException | Error e) {
            metrics.acquireEnded(caller.scope(), called, Acquire.FAILED);
            throw e;
        }
        metrics.acquireEnded(caller.scope(), called, outcome(handle, null));
        return handle;
    }

    /** How an acquire that returned {@code handle} (null: not granted in time) or failed with {@code failure} ended. */
    private static Acquire outcome(Handle handle, Throwable failure) {
        if (failure == null) {
            return handle == null ? Acquire.TIMEOUT : handle.reentered ? Acquire.REENTERED : Acquire.GRANTED;
        }
        if (failure instanceof LockTimeoutException) {
            return Acquire.TIMEOUT;
        }
        if (failure instanceof CancellationException) {
            return Acquire.CANCELLED;
        }
        return failure instanceof LockInterruptedException ? Acquire.INTERRUPTED : Acquire.FAILED;
    }

    private Handle awaitGrant(String name, LockOptions options, Caller caller, long called, boolean interruptible) {
        long deadline = called + waitNanos(options.waitTime());
        NameState state = ref(name);
        boolean keepRef = false;
        boolean interrupted = false;
        Waiter.Sync waiter = null;
        Backoff backoff = new Backoff();
        try {
            state.mutex.lock();
            try {
                Holding reentered = state.reentrant(caller);
                if (reentered != null) {
                    return reenter(reentered);
                }
                waiter = new Waiter.Sync(caller, state.mutex.newCondition());
                state.enqueue(waiter);
            } finally {
                state.mutex.unlock();
            }
            while (true) {
                state.mutex.lock();
                try {
                    while (true) {
                        ensureOpen();
                        Holding reentered = state.reentrant(caller);
                        if (reentered != null) {
                            state.leave(waiter);
                            waiter = null;
                            return reenter(reentered);
                        }
                        long now = System.nanoTime();
                        if (state.isTurnOf(waiter) && waiter.pauseOver(now)) {
                            break;
                        }
                        long left = deadline - now;
                        if (left <= 0) {
                            return null;
                        }
                        long pause = state.isTurnOf(waiter) ? Math.min(left, waiter.pauseUntil - now) : left;
                        try {
                            waiter.turn.awaitNanos(pause);
                        } catch (InterruptedException e) {
                            if (interruptible) {
                                throw interrupted(name, null);
                            }
                            interrupted = true;
                        }
                    }
                    waiter.woken = false;
                } finally {
                    state.mutex.unlock();
                }
                if (interruptible && Thread.currentThread().isInterrupted()) {
                    throw interrupted(name, null);
                }
                long start = System.nanoTime();
                Instant wallStart = Instant.now();
                GrantEvents events = new GrantEvents(this);
                BlockingCalls.Call call = blocking.start(interruptible);
                Attempt attempt = attempt(request(name, caller, options, blockNanos(deadline - start), events, call), call);
                if (attempt.isGranted()) {
                    Holding holding = install(state, waiter, caller, options, attempt.grant(), start, wallStart, events);
                    waiter = null;
                    keepRef = true;
                    return new Handle(this, holding, false);
                }
                if (deadline - System.nanoTime() <= 0) {
                    return null;
                }
                boolean firstMiss = !state.noHints && subscribeOnce(state);
                long pause = firstMiss ? 0 : backoff.pauseNanos(hinted(state), attempt.retryAfter());
                state.mutex.lock();
                try {
                    waiter.pauseUntil = System.nanoTime() + pause;
                } finally {
                    state.mutex.unlock();
                }
            }
        } finally {
            if (waiter != null) {
                state.mutex.lock();
                try {
                    state.leave(waiter);
                } finally {
                    state.mutex.unlock();
                }
            }
            if (!keepRef) {
                unref(state);
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A caller waiting through {@link #acquireAsync}: its attempts run on worker threads, its pauses on timers. */
    private final class AsyncWaiter extends Waiter {
        final LockOptions options;
        final NameState state;
        final CompletableFuture<LockHandle> future = new CompletableFuture<>();
        final long deadline;
        final Backoff backoff = new Backoff();
        boolean attempting;
        /** Guarded by state.mutex: the waiter's reference to the state was handed on or given back. */
        boolean settled;

        AsyncWaiter(Caller caller, LockOptions options, NameState state, long called) {
            super(caller);
            this.options = options;
            this.state = state;
            this.deadline = called + waitNanos(options.waitTime());
        }

        @Override
        void wake() {
            woken = true;
            if (!attempting && !future.isDone()) {
                execute(this::drive);
            }
        }

        void drive() {
            state.mutex.lock();
            try {
                if (future.isDone() || attempting || closed) {
                    if (closed) {
                        future.completeExceptionally(closedError());
                    }
                    return;
                }
                Holding reentered = state.reentrant(caller);
                if (reentered != null) {
                    if (settle()) {
                        state.leave(this);
                        unref(state);
                    }
                    future.complete(reenter(reentered));
                    return;
                }
                if (!state.isTurnOf(this) || !pauseOver(System.nanoTime())) {
                    return;
                }
                woken = false;
                attempting = true;
            } finally {
                state.mutex.unlock();
            }
            long start = System.nanoTime();
            Instant wallStart = Instant.now();
            GrantEvents events = new GrantEvents(CoreLockManager.this);
            Attempt attempt;
            try {
                BlockingCalls.Call call = blocking.start(false);
                attempt = attempt(request(state.name, caller, options, blockNanos(deadline - start), events, call), call);
            } catch (RuntimeException e) {
                finishAttempt();
                future.completeExceptionally(e);
                return;
            }
            if (attempt.isGranted()) {
                grant(attempt.grant(), start, wallStart, events);
                return;
            }
            boolean firstMiss = !state.noHints && subscribeOnce(state);
            long pause = firstMiss ? 0 : backoff.pauseNanos(hinted(state), attempt.retryAfter());
            boolean expired;
            state.mutex.lock();
            try {
                attempting = false;
                expired = System.nanoTime() - deadline >= 0;
                if (!expired) {
                    pauseUntil = System.nanoTime() + pause;
                    if (woken || pause == 0 || closed) {
                        execute(this::drive);
                        return;
                    }
                }
            } finally {
                state.mutex.unlock();
            }
            if (expired) {
                future.completeExceptionally(new LockTimeoutException(state.name, options.waitTime()));
                return;
            }
            try {
                timers.schedule(() -> execute(this::drive), pause, TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException closing) {
                future.completeExceptionally(closedError());
            }
        }

        /**
         * The wait is over. An attempt that is running, about to run (its turn came and it was woken) or being
         * granted decides instead, so that even a zero wait gets its one attempt, as in {@code tryAcquire}.
         */
        void expire() {
            state.mutex.lock();
            try {
                if (attempting || settled || woken && state.isTurnOf(this)) {
                    return;
                }
            } finally {
                state.mutex.unlock();
            }
            future.completeExceptionally(new LockTimeoutException(state.name, options.waitTime()));
        }

        private void grant(Grant grant, long start, Instant wallStart, GrantEvents events) {
            boolean mine;
            state.mutex.lock();
            try {
                attempting = false;
                mine = settle();
            } finally {
                state.mutex.unlock();
            }
            if (!mine) {
                releaseQuietly(grant, "request withdrawn");
                return;
            }
            Holding holding;
            try {
                holding = install(state, this, caller, options, grant, start, wallStart, events);
            } catch (RuntimeException e) {
                unref(state);
                future.completeExceptionally(e);
                return;
            }
            Handle handle = new Handle(CoreLockManager.this, holding, false);
            if (!future.complete(handle)) {
                handle.close();
            }
        }

        private void finishAttempt() {
            state.mutex.lock();
            try {
                attempting = false;
            } finally {
                state.mutex.unlock();
            }
        }

        /** Timed out, cancelled or failed: leave the queue and give back the reference, once. */
        void abandon() {
            state.mutex.lock();
            try {
                if (!settle()) {
                    return;
                }
                state.leave(this);
            } finally {
                state.mutex.unlock();
            }
            unref(state);
        }

        private boolean settle() {
            if (settled) {
                return false;
            }
            settled = true;
            return true;
        }
    }

    private Handle reenter(Holding holding) {
        holding.holds++;
        return new Handle(this, holding, true);
    }

    private Holding install(NameState state, Waiter waiter, Caller caller, LockOptions options, Grant grant,
            long start, Instant wallStart, GrantEvents events) {
        Holding holding;
        try {
            holding = new Holding(state, caller, grant, options.lease(), options.autoRenew(), start, wallStart);
        } catch (RuntimeException | Error e) {
            giveBack(grant, "could not start holding it");
            throw e;
        }
        boolean open;
        state.mutex.lock();
        try {
            open = !closed;
            if (open) {
                state.grant(waiter, holding);
                metrics.holdingStarted(state.name, caller.scope(), grant.fencingToken());
            }
        } finally {
            state.mutex.unlock();
        }
        if (!open) {
            giveBack(grant, "lock manager closed");
            throw closedError();
        }
        try {
            if (caller.scope() == LockScope.TRANSACTION) {
                caller.transaction().onCompletion(() -> beforeCompletion(holding), committed -> afterCompletion(holding, committed));
            }
            if (holding.limited()) {
                if (holding.renews && holding.leaseOver()) {
                    confirmLateGrant(holding, options.lease());
                }
                armLeaseTimer(holding);
            }
        } catch (RuntimeException | Error e) {
            if (holding.end(Holding.Status.RELEASED, null)) {
                giveBack(grant, "could not bind to the transaction");
                detach(holding);
            }
            throw e;
        }
        events.attach(holding);
        return holding;
    }

    private LockRequest request(String name, Caller caller, LockOptions options, long blockNanos, GrantEvents events,
            BlockingCalls.Call call) {
        return new LockRequest(name, caller.owner(), options.lease(), Duration.ofNanos(blockNanos),
                caller.scope() == LockScope.TRANSACTION, events, call);
    }

    private long blockNanos(long left) {
        return provider.blocksWhileWaiting() ? Math.max(0, left) : 0;
    }

    /**
     * One attempt. One that was cancelled (its caller interrupted, or this manager closed while it blocked in the
     * backend) ends with that news, and a grant it got all the same is given back.
     */
    private Attempt attempt(LockRequest request, BlockingCalls.Call call) {
        Attempt attempt;
        try {
            attempt = callProvider(() -> provider.tryAcquire(request), "acquire '" + request.name() + "'");
        } catch (RuntimeException e) {
            if (call.isCancelled() || call.callerInterrupted() || closed) {
                throw cancelled(request.name(), e);
            }
            throw e;
        }
        if (call.isCancelled() || call.callerInterrupted() || closed) {
            if (attempt.isGranted()) {
                giveBack(attempt.grant(), closed ? "lock manager closed" : "caller interrupted");
            }
            throw cancelled(request.name(), null);
        }
        return attempt;
    }

    private RuntimeException cancelled(String name, RuntimeException cause) {
        RuntimeException e = closed ? closedError() : interrupted(name, cause);
        if (closed && cause != null) {
            e.addSuppressed(cause);
        }
        return e;
    }

    /** @return the caller's news that it was interrupted; its interrupt flag stays set */
    private static LockInterruptedException interrupted(String name, RuntimeException cause) {
        InterruptedException interrupt = new InterruptedException("the waiting thread was interrupted");
        if (cause != null) {
            interrupt.initCause(cause);
        }
        Thread.currentThread().interrupt();
        return new LockInterruptedException(name, interrupt);
    }

    /** Gives back a grant no holding took over; one that ends with the caller's transaction ends with it. */
    private void giveBack(Grant grant, String why) {
        if (!grant.endsWithTransaction()) {
            releaseQuietly(grant, why);
        }
    }

    // ---- wake-up hints

    /** @return true if this call subscribed, so the caller should try once more at once to close the gap */
    private boolean subscribeOnce(NameState state) {
        state.mutex.lock();
        try {
            if (state.hasSubscription() || state.noHints) {
                return false;
            }
        } finally {
            state.mutex.unlock();
        }
        Optional<AutoCloseable> subscription;
        try {
            subscription = provider.subscribe(state.name, () -> onReleaseHint(state));
        } catch (RuntimeException e) {
            log.debug("no wake-up hint for '{}': {}", state.name, e.toString());
            subscription = Optional.empty();
        }
        AutoCloseable surplus;
        state.mutex.lock();
        try {
            if (subscription.isEmpty()) {
                state.noHints = true;
                return false;
            }
            surplus = state.keepSubscription(subscription.get());
        } finally {
            state.mutex.unlock();
        }
        if (surplus != null) {
            closeQuietly(surplus);
            return false;
        }
        if (!states.containsKey(state.name) || states.get(state.name) != state) {
            closeSubscription(state);
        }
        return true;
    }

    private boolean hinted(NameState state) {
        state.mutex.lock();
        try {
            return state.hasSubscription();
        } finally {
            state.mutex.unlock();
        }
    }

    private void onReleaseHint(NameState state) {
        state.mutex.lock();
        try {
            state.wakeHead();
        } finally {
            state.mutex.unlock();
        }
    }

    // ---- holding lifecycle

    int holdCount(Holding holding) {
        holding.state.mutex.lock();
        try {
            return holding.holds;
        } finally {
            holding.state.mutex.unlock();
        }
    }

    void release(Handle handle, boolean closing) {
        Holding holding = handle.holding;
        if (!handle.released.compareAndSet(false, true)) {
            if (closing) {
                return;
            }
            throw new LockNotHeldException("lock " + holding + " was already released through this handle");
        }
        releaseOne(holding, closing);
    }

    /** @param closing the handle is being closed: a lock its transaction already released needs nothing more */
    private void releaseOne(Holding holding, boolean closing) {
        loseIfLeaseOver(holding);
        boolean last;
        holding.state.mutex.lock();
        try {
            Holding.Status status = holding.status();
            if (status == Holding.Status.LOST) {
                throw new LockNotHeldException("lock " + holding + " was lost while held (" + holding.lostReason()
                        + "): the protected work may have overlapped with another holder");
            }
            if (status != Holding.Status.HELD && status != Holding.Status.SUSPENDED) {
                if (closing) {
                    return;
                }
                throw new LockNotHeldException("lock " + holding + " is no longer held (" + status
                        + (holding.scope() == LockScope.TRANSACTION ? ": its transaction ended" : "") + ")");
            }
            holding.holds = Math.max(0, holding.holds - 1);
            // ends under the name's mutex, where reentry is decided: no owner re-enters a holding being released
            last = holding.holds == 0 && holding.scope() == LockScope.LEASE && holding.end(Holding.Status.RELEASING, null);
        } finally {
            holding.state.mutex.unlock();
        }
        if (last) {
            releaseGrant(holding);
        }
    }

    private void releaseGrant(Holding holding) {
        metrics.releaseStarted(holding.state.name, holding.grant.fencingToken());
        try {
            callProvider(() -> {
                provider.release(holding.grant);
                return null;
            }, "release '" + holding.state.name + "'");
            holding.finishRelease(Holding.Status.RELEASED, null);
        } catch (LockNotHeldException e) {
            if (holding.finishRelease(Holding.Status.LOST, e.getMessage())) {
                metrics.lost(Lost.RELEASE_REFUSED);
            }
            throw new LockNotHeldException("lock " + holding + " was lost before release (" + e.getMessage()
                    + "): the protected work may have overlapped with another holder");
        } catch (RuntimeException e) {
            holding.finishRelease(Holding.Status.RELEASED, null);
            throw e;
        } finally {
            free(holding);
        }
    }

    /** The holding no longer occupies its name: wake the next local waiter and give back its reference. */
    private void free(Holding holding) {
        detach(holding);
        unref(holding.state);
    }

    /** The one place where a holding ends, whether released, ended with its transaction, or lost. */
    private void detach(Holding holding) {
        NameState state = holding.state;
        boolean freed;
        state.mutex.lock();
        try {
            freed = state.free(holding);
        } finally {
            state.mutex.unlock();
        }
        if (freed) {
            metrics.holdingEnded(state.name, holding.grant.fencingToken(), holding.scope(), holding.grantedNanos,
                    holding.lostReason());
        }
    }

    void extend(Holding holding, Duration lease) {
        LockOptions.requireLease(lease);
        loseIfLeaseOver(holding);
        if (!holding.isUsable()) {
            throw new LockNotHeldException("cannot extend lock " + holding + ": " + holding.status()
                    + (holding.lostReason() != null ? " (" + holding.lostReason() + ")" : ""));
        }
        if (!holding.limited()) {
            return;
        }
        holding.renewalStarted();
        try {
            renewNow(holding, lease);
        } finally {
            armLeaseTimer(holding);
        }
    }

    /**
     * Sends a renewal the caller counted with {@link Holding#renewalStarted}, for {@code lease} from before the call.
     * Until the backend confirms it, the lease runs on as before, or ends sooner if the renewal shortens it (the
     * backend may apply it before answering, or without an answer ever coming), and its end is still watched: a
     * confirmation that comes after the lease ran out on this JVM's clock does not revive the holding.
     *
     * @throws LockNotHeldException if the backend refused, or confirmed too late; the holding is lost
     * @throws LockBackendException if the backend failed; only a shortened lease changed
     */
    private void renewNow(Holding holding, Duration lease) {
        long start = System.nanoTime();
        Instant wallStart = Instant.now();
        boolean shortening = holding.leaseMayEndAt(start, wallStart, lease);
        if (shortening) {
            armLeaseTimer(holding);
        }
        try {
            renewInBackend(holding, lease, "renew '" + holding.state.name + "'");
        } catch (LockNotHeldException e) {
            holding.renewalEnded();
            lose(holding, Lost.RENEWAL_REFUSED, "renewal refused: " + e.getMessage());
            throw e;
        } catch (RuntimeException | Error e) {
            holding.renewalEnded();
            if (shortening) {
                holding.capLease(start, wallStart, lease);
            }
            throw e;
        }
        if (!holding.renewed(start, wallStart, lease)) {
            loseIfLeaseOver(holding);
            throw new LockNotHeldException("lock " + holding + " is no longer held (" + holding.status()
                    + (holding.lostReason() != null ? ": " + holding.lostReason() : "")
                    + "): the backend confirmed the renewal only after the lease had run out on this JVM's clock, or after the lock had ended");
        }
    }

    /**
     * The attempt waited in the backend (a row lock) longer than the lease, so the lease counted from its start ran out
     * before the grant was handed out, although the grant itself came at the end of the wait: renew it once, before
     * the caller gets its handle, and count the lease from that renewal.
     */
    private void confirmLateGrant(Holding holding, Duration lease) {
        long start = System.nanoTime();
        Instant wallStart = Instant.now();
        renewInBackend(holding, lease, "renew '" + holding.state.name + "' after a wait longer than its lease");
        holding.restartLease(start, wallStart, lease);
    }

    /** The one call of {@link LockProvider#renew}, counted by its outcome. */
    private void renewInBackend(Holding holding, Duration lease, String what) {
        try {
            callProvider(() -> {
                provider.renew(holding.grant, lease);
                return null;
            }, what);
        } catch (LockNotHeldException e) {
            renewalFailures.increment();
            metrics.renewal(Renewal.REFUSED);
            throw e;
        } catch (RuntimeException e) {
            renewalFailures.increment();
            metrics.renewal(Renewal.FAILED);
            throw e;
        }
        metrics.renewal(Renewal.OK);
    }

    /** (Re)schedules the holding's one lease timer; see {@link Holding#armLeaseTimer}. */
    private void armLeaseTimer(Holding holding) {
        if (closed) {
            return;
        }
        holding.armLeaseTimer(leaseTimers, () -> leaseWork(holding));
    }

    /**
     * The holding's lease timer is due: the lease ended (lost, even while a renewal hangs in the backend), or a
     * background renewal is due, or (a timer that ran early or was overtaken) the timer is set again.
     */
    private void leaseWork(Holding holding) {
        if (!holding.isLive()) {
            return;
        }
        if (loseIfLeaseOver(holding)) {
            return;
        }
        if (holding.renews && holding.startBackgroundRenewal()) {
            renewInBackground(holding);
        } else {
            armLeaseTimer(holding);
        }
    }

    /** Sends a renewal counted by {@link Holding#startBackgroundRenewal}; the lease's end stays watched meanwhile. */
    private void renewInBackground(Holding holding) {
        armLeaseTimer(holding);
        try {
            renewNow(holding, holding.lease());
            armLeaseTimer(holding);
        } catch (LockNotHeldException e) {
            log.debug("renewing {}: {}", holding, e.getMessage());
        } catch (RuntimeException e) {
            long now = System.nanoTime();
            long left = holding.expiresAtNanos() - now;
            if (left <= 0) {
                lose(holding, Lost.BACKEND_UNREACHABLE, "backend unreachable until the lease ran out: " + e.getMessage());
            } else {
                log.warn("renewing {} failed, retrying within its lease: {}", holding, e.toString());
                holding.renewAgainAt(now + Math.min(left, Math.max(TimeUnit.MILLISECONDS.toNanos(1),
                        holding.lease().toNanos() / 10)));
                armLeaseTimer(holding);
            }
        }
    }

    /**
     * Loses the holding if its lease ran out on this JVM's clock with no renewal confirmed in time.
     *
     * @return whether the lease had run out
     */
    private boolean loseIfLeaseOver(Holding holding) {
        if (!holding.leaseOver()) {
            return false;
        }
        lose(holding, Lost.LEASE_EXPIRED, "lease of " + holding.lease() + " ran out at " + holding.expiresAt()
                + (holding.renews ? " before a renewal was confirmed" : " (autoRenew off)"));
        return true;
    }

    /** The grant is gone while its owner still counts on it. */
    void lose(Holding holding, Lost cause, String reason) {
        if (!holding.end(Holding.Status.LOST, reason)) {
            return;
        }
        lostLocks.increment();
        metrics.lost(cause);
        log.warn("lock {} lost: {}", holding, reason);
        free(holding);
        if (holding.caller.transaction() != null) {
            try {
                holding.caller.transaction().setRollbackOnly();
            } catch (RuntimeException e) {
                log.debug("could not mark the transaction rollback-only: {}", e.toString());
            }
        }
        for (Runnable listener : holding.takeLostListeners()) {
            execute(listener);
        }
        if (!holding.grant.endsWithTransaction()) {
            execute(() -> releaseQuietly(holding.grant, "lost: " + reason));
        }
    }

    void onLost(Holding holding, Runnable listener) {
        if (holding.addLostListener(listener)) {
            execute(listener);
        }
    }

    private void beforeCompletion(Holding holding) {
        loseIfLeaseOver(holding);
        if (holding.status() == Holding.Status.LOST) {
            // lose() may have run on a backend thread (a ZooKeeper session event), where a thread-bound
            // transaction API such as TransactionSynchronizationRegistry cannot mark it: mark it here, on its thread
            holding.caller.transaction().setRollbackOnly();
            return;
        }
        if (holding.grant.endsWithTransaction() && holding.isUsable()) {
            callProvider(() -> {
                provider.beforeCompletion(holding.grant);
                return null;
            }, "free '" + holding.state.name + "' before commit");
        }
    }

    private void afterCompletion(Holding holding, boolean committed) {
        boolean ending;
        holding.state.mutex.lock();
        try {
            ending = holding.end(Holding.Status.RELEASING, null);
        } finally {
            holding.state.mutex.unlock();
        }
        if (!ending) {
            return;
        }
        try {
            if (!holding.grant.endsWithTransaction()) {
                releaseQuietly(holding.grant, committed ? "transaction committed" : "transaction rolled back");
            }
        } finally {
            holding.finishRelease(Holding.Status.RELEASED, null);
            free(holding);
        }
    }

    private void releaseQuietly(Grant grant, String why) {
        try {
            provider.release(grant);
        } catch (LockNotHeldException e) {
            log.debug("releasing '{}' ({}): already gone", grant.name(), why);
        } catch (RuntimeException e) {
            log.warn("releasing '{}' ({}) failed; its lease will run out: {}", grant.name(), why, e.toString());
        }
    }

    // ---- j.u.c.Lock view

    boolean acquireForView(String name, LockOptions options, boolean interruptible) {
        return acquireSync(name, options, interruptible) != null;
    }

    void releaseForView(String name) {
        Caller caller = caller(defaults);
        NameState state = states.get(name);
        Holding holding = null;
        if (state != null) {
            state.mutex.lock();
            try {
                holding = state.reentrant(caller);
            } finally {
                state.mutex.unlock();
            }
        }
        if (holding == null) {
            throw new IllegalMonitorStateException("lock '" + name + "' is not held by " + caller.owner().id());
        }
        releaseOne(holding, false);
    }

    // ---- plumbing

    private Caller caller(LockOptions options) {
        Optional<CallerTransaction> transaction =
                options.scope() == LockScope.LEASE ? Optional.empty() : transactions.current();
        LockScope scope = options.scope() == LockScope.AUTO
                ? (transaction.isPresent() ? LockScope.TRANSACTION : LockScope.LEASE)
                : options.scope();
        Thread thread = Thread.currentThread();
        if (scope == LockScope.TRANSACTION) {
            CallerTransaction tx = transaction.orElseThrow(() -> new IllegalStateException(
                    "LockScope.TRANSACTION needs an active transaction on the calling thread, and " + transactions
                            + " found none: acquire inside a transaction, or use LockScope.LEASE or AUTO"));
            Object key = tx.key();
            return new Caller(scope, key, new LockOwner(host, instanceId, "tx:" + abbreviate(String.valueOf(key), 150)), tx, thread);
        }
        return threadCaller.get();
    }

    private Caller threadOwner() {
        ThreadKey key = THREAD_KEY.get();
        Thread thread = Thread.currentThread();
        return new Caller(LockScope.LEASE, key, new LockOwner(host, instanceId, "t" + key.sequence + ":" + abbreviate(thread.getName(), 100)),
                null, thread);
    }

    private NameState ref(String name) {
        return states.compute(name, (k, state) -> {
            NameState s = state != null ? state : new NameState(k, metrics);
            s.refs++;
            return s;
        });
    }

    private void unref(NameState state) {
        boolean[] removed = {false};
        states.computeIfPresent(state.name, (k, s) -> {
            if (s != state) {
                return s;
            }
            if (--s.refs == 0) {
                removed[0] = true;
                return null;
            }
            return s;
        });
        if (removed[0]) {
            closeSubscription(state);
        }
    }

    private void closeSubscription(NameState state) {
        AutoCloseable subscription;
        state.mutex.lock();
        try {
            subscription = state.takeSubscription();
        } finally {
            state.mutex.unlock();
        }
        if (subscription != null) {
            closeQuietly(subscription);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            log.debug("closing a wake-up subscription failed: {}", e.toString());
        }
    }

    private <T> T callProvider(java.util.function.Supplier<T> call, String what) {
        try {
            return call.get();
        } catch (LockException | IllegalArgumentException | IllegalStateException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new LockBackendException(provider.describe() + ": could not " + what + ": " + e, e);
        }
    }

    private void execute(Runnable task) {
        try {
            workers.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            log.debug("lock manager closed, running a last task on the calling thread");
            task.run();
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw closedError();
        }
    }

    private IllegalStateException closedError() {
        return new IllegalStateException("lock manager " + instanceId + " is closed: build a new one");
    }

    private static void requireOptions(LockOptions options) {
        if (options == null) {
            throw new IllegalArgumentException("options must not be null: use LockOptions.defaults()");
        }
    }

    /** Waits longer than this (about 73 years) are waits until granted; it keeps deadline arithmetic exact. */
    private static final long FOREVER_NANOS = Long.MAX_VALUE / 4;

    private static long waitNanos(Duration wait) {
        return wait.compareTo(Duration.ofNanos(FOREVER_NANOS)) >= 0 ? FOREVER_NANOS : wait.toNanos();
    }

    private static String abbreviate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }

    private ThreadFactory threads(String role) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "txlock-" + instanceId + "-" + role + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** Identity of a thread as lock owner; unique for the JVM's lifetime, unlike thread ids. */
    private static final class ThreadKey {
        final long sequence;

        ThreadKey(long sequence) {
            this.sequence = sequence;
        }
    }
}
