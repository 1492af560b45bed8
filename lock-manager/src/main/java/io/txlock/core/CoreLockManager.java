package io.txlock.core;

import io.txlock.LockHandle;
import io.txlock.LockHealth;
import io.txlock.LockInfo;
import io.txlock.LockInterruptedException;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.LockTimeoutException;
import io.txlock.core.LockMetrics.Acquire;
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
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;

/**
 * The one implementation of {@link LockManager}, for every {@link LockProvider}: the facade over the core's pieces,
 * and their lifecycle. Use {@link LockManager#builder}.
 *
 * <ul>
 *   <li>here still: reentry, the local FIFO queues, blocking and async waiting, timeouts;
 *   <li>{@link Holdings}: what is held, reentry, release, loss and transaction completion;
 *   <li>{@link LeaseKeeper}: renewal, lease end and loss by lease;
 *   <li>{@link LocalNames}: the names held or waited for here, their local queues and wake-up subscriptions.
 * </ul>
 *
 * Its own state is final but for the pieces' shared {@link Lifecycle}.
 */
public final class CoreLockManager implements LockManager {

    private static final AtomicLong THREAD_SEQUENCE = new AtomicLong();
    private static final ThreadLocal<ThreadKey> THREAD_KEY =
            ThreadLocal.withInitial(() -> new ThreadKey(THREAD_SEQUENCE.incrementAndGet()));
    private static final SecureRandom RANDOM = new SecureRandom();

    private final LockProvider provider;
    private final LockOptions defaults;
    private final TransactionSupport transactions;
    private final String host;
    private final LockMetrics metrics;
    private final Lifecycle lifecycle;
    private final BlockingCalls blocking;
    private final LocalNames names;
    private final Holdings holdings;
    private final Backend backend;
    /** The calling thread as the owner of LEASE-scoped locks: made once per thread, not at every acquire. */
    private final ThreadLocal<Caller> threadCaller = ThreadLocal.withInitial(this::threadOwner);

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
            LockMetrics metrics, ScheduledExecutorService scheduler, Executor executor) {
        this.provider = provider;
        this.metrics = metrics;
        this.defaults = defaults;
        this.transactions = transactions;
        this.host = host;
        this.lifecycle = new Lifecycle(Long.toUnsignedString(RANDOM.nextLong() >>> 2, 36), scheduler, executor);
        this.blocking = new BlockingCalls(lifecycle.timers);
        this.backend = new Backend(provider);
        this.names = new LocalNames(provider, metrics);
        this.holdings = new Holdings(names, backend, lifecycle, metrics);
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
        lifecycle.ensureOpen();
        LockNames.validate(name);
        requireOptions(options);
        Caller caller = caller(options);
        if (caller.scope() == LockScope.TRANSACTION && provider.joinsCallerTransaction()) {
            throw new IllegalStateException("acquireAsync cannot lock '" + name + "' in the caller's transaction with "
                    + provider.describe() + ": its SQL must run on the caller's thread. Use acquire(), or LockScope.LEASE");
        }
        long called = System.nanoTime();
        LocalName state = names.ref(name);
        AsyncWaiter waiter = new AsyncWaiter(caller, options, state, called);
        Handle reentry = null;
        state.mutex.lock();
        try {
            Holding reentered = state.reentrant(caller);
            if (reentered != null) {
                waiter.settled = true;
                names.unref(state);
                reentry = holdings.reenter(reentered);
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
            java.util.concurrent.ScheduledFuture<?> timeout = lifecycle.timers.schedule(waiter::expire, waitNanos, TimeUnit.NANOSECONDS);
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
        lifecycle.ensureOpen();
        LockNames.validate(name);
        return holdings.inspect(name, backendCall(() -> provider.inspect(name), "inspect '" + name + "'"));
    }

    @Override
    public LockHealth health() {
        lifecycle.ensureOpen();
        String problem = null;
        try {
            backendCall(() -> provider.inspect(HEALTH_PROBE), "inspect '" + HEALTH_PROBE + "'");
        } catch (RuntimeException e) {
            problem = e.toString();
        }
        int held = 0;
        int waiting = 0;
        for (LocalName state : names.all()) {
            state.mutex.lock();
            try {
                held += state.holding != null ? 1 : 0;
                waiting += state.waiting();
            } finally {
                state.mutex.unlock();
            }
        }
        return new LockHealth(problem == null, problem, held, waiting, holdings.leases.renewalFailures(), holdings.losses());
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
        return lifecycle.instanceId;
    }

    /**
     * Cancels every attempt blocked in the backend, releases every LEASE-scoped lock held here (a TRANSACTION-scoped
     * one ends with its transaction), fails every waiter, then stops the threads this manager made and closes the
     * provider. A grant that still arrives for a cancelled attempt is given back.
     */
    @Override
    public void close() {
        if (!lifecycle.close()) {
            return;
        }
        blocking.cancelAll();
        holdings.releaseAll();
        lifecycle.shutDown();
        provider.close();
    }

    /** @return how many names this manager keeps state for: names held or waited for, none other */
    int trackedNames() {
        return names.size();
    }

    /** @return how many lease timers are pending */
    int pendingLeaseTimers() {
        return holdings.leases.pendingTimers();
    }

    @Override
    public String toString() {
        return "LockManager[" + lifecycle.instanceId + " on " + provider.describe() + "]";
    }

    // ---- acquiring

    /** @return the handle, or null if not granted within the wait */
    private Handle acquireSync(String name, LockOptions options, boolean interruptible) {
        lifecycle.ensureOpen();
        LockNames.validate(name);
        requireOptions(options);
        Caller caller = caller(options);
        long called = System.nanoTime();
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

    private Handle awaitGrant(String name, LockOptions options, Caller caller, long called, boolean interruptible) {
        long deadline = called + waitNanos(options.waitTime());
        LocalName state = names.ref(name);
        boolean keepRef = false;
        boolean interrupted = false;
        Waiter.Sync waiter = null;
        Backoff backoff = new Backoff();
        try {
            state.mutex.lock();
            try {
                Holding reentered = state.reentrant(caller);
                if (reentered != null) {
                    return holdings.reenter(reentered);
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
                        lifecycle.ensureOpen();
                        Holding reentered = state.reentrant(caller);
                        if (reentered != null) {
                            state.leave(waiter);
                            waiter = null;
                            return holdings.reenter(reentered);
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
                GrantEvents events = new GrantEvents(holdings);
                BlockingCalls.Call call = blocking.start(interruptible);
                Attempt attempt = attempt(request(name, caller, options, blockNanos(deadline - start), events, call), call);
                if (attempt.isGranted()) {
                    Handle handle = install(state, waiter, caller, options, attempt.grant(), start, wallStart, events);
                    waiter = null;
                    keepRef = true;
                    return handle;
                }
                if (deadline - System.nanoTime() <= 0) {
                    return null;
                }
                boolean firstMiss = !state.noHints && names.subscribeOnce(state);
                long pause = firstMiss ? 0 : backoff.pauseNanos(names.hinted(state), attempt.retryAfter());
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
                names.unref(state);
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A caller waiting through {@link #acquireAsync}: its attempts run on worker threads, its pauses on timers. */
    private final class AsyncWaiter extends Waiter {
        final LockOptions options;
        final LocalName state;
        final CompletableFuture<LockHandle> future = new CompletableFuture<>();
        final long deadline;
        final Backoff backoff = new Backoff();
        boolean attempting;
        /** Guarded by state.mutex: the waiter's reference to the state was handed on or given back. */
        boolean settled;

        AsyncWaiter(Caller caller, LockOptions options, LocalName state, long called) {
            super(caller);
            this.options = options;
            this.state = state;
            this.deadline = called + waitNanos(options.waitTime());
        }

        @Override
        void wake() {
            woken = true;
            if (!attempting && !future.isDone()) {
                lifecycle.execute(this::drive);
            }
        }

        void drive() {
            state.mutex.lock();
            try {
                if (future.isDone() || attempting || lifecycle.isClosed()) {
                    if (lifecycle.isClosed()) {
                        future.completeExceptionally(lifecycle.closedError());
                    }
                    return;
                }
                Holding reentered = state.reentrant(caller);
                if (reentered != null) {
                    if (settle()) {
                        state.leave(this);
                        names.unref(state);
                    }
                    future.complete(holdings.reenter(reentered));
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
            GrantEvents events = new GrantEvents(holdings);
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
            boolean firstMiss = !state.noHints && names.subscribeOnce(state);
            long pause = firstMiss ? 0 : backoff.pauseNanos(names.hinted(state), attempt.retryAfter());
            boolean expired;
            state.mutex.lock();
            try {
                attempting = false;
                expired = System.nanoTime() - deadline >= 0;
                if (!expired) {
                    pauseUntil = System.nanoTime() + pause;
                    if (woken || pause == 0 || lifecycle.isClosed()) {
                        lifecycle.execute(this::drive);
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
                lifecycle.timers.schedule(() -> lifecycle.execute(this::drive), pause, TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException closing) {
                future.completeExceptionally(lifecycle.closedError());
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
                backend.releaseQuietly(grant, "request withdrawn");
                return;
            }
            Handle handle;
            try {
                handle = install(state, this, caller, options, grant, start, wallStart, events);
            } catch (RuntimeException e) {
                names.unref(state);
                future.completeExceptionally(e);
                return;
            }
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
            names.unref(state);
        }

        private boolean settle() {
            if (settled) {
                return false;
            }
            settled = true;
            return true;
        }
    }

    private Handle install(LocalName state, Waiter waiter, Caller caller, LockOptions options, Grant grant,
            long start, Instant wallStart, GrantEvents events) {
        Holding holding = holdings.start(state, caller, options, grant, start, wallStart);
        boolean open;
        state.mutex.lock();
        try {
            open = !lifecycle.isClosed();
            if (open) {
                holdings.occupy(waiter, holding);
            }
        } finally {
            state.mutex.unlock();
        }
        if (!open) {
            backend.giveBack(grant, "lock manager closed");
            throw lifecycle.closedError();
        }
        return holdings.bind(holding, options.lease(), events);
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
            attempt = backend.call(() -> provider.tryAcquire(request), "acquire '" + request.name() + "'");
        } catch (RuntimeException e) {
            if (call.isCancelled() || call.callerInterrupted() || lifecycle.isClosed()) {
                throw cancelled(request.name(), e);
            }
            throw e;
        }
        if (call.isCancelled() || call.callerInterrupted() || lifecycle.isClosed()) {
            if (attempt.isGranted()) {
                backend.giveBack(attempt.grant(), lifecycle.isClosed() ? "lock manager closed" : "caller interrupted");
            }
            throw cancelled(request.name(), null);
        }
        return attempt;
    }

    private RuntimeException cancelled(String name, RuntimeException cause) {
        RuntimeException e = lifecycle.isClosed() ? lifecycle.closedError() : interrupted(name, cause);
        if (lifecycle.isClosed() && cause != null) {
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

    // ---- j.u.c.Lock view

    boolean acquireForView(String name, LockOptions options, boolean interruptible) {
        return acquireSync(name, options, interruptible) != null;
    }

    void releaseForView(String name) {
        holdings.releaseOwn(name, caller(defaults));
    }

    // ---- plumbing

    private Caller caller(LockOptions options) {
        Optional<CallerTransaction> transaction =
                options.scope() == LockScope.LEASE ? Optional.empty() : transactions.current();
        LockScope scope = options.scope() == LockScope.AUTO
                ? (transaction.isPresent() ? LockScope.TRANSACTION : LockScope.LEASE)
                : options.scope();
        if (scope == LockScope.TRANSACTION) {
            CallerTransaction tx = transaction.orElseThrow(() -> new IllegalStateException(
                    "LockScope.TRANSACTION needs an active transaction on the calling thread, and " + transactions
                            + " found none: acquire inside a transaction, or use LockScope.LEASE or AUTO"));
            Object key = tx.key();
            return new Caller(scope, key, new LockOwner(host, lifecycle.instanceId, "tx:" + abbreviate(String.valueOf(key), 150)),
                    tx, Thread.currentThread());
        }
        return threadCaller.get();
    }

    private Caller threadOwner() {
        ThreadKey key = THREAD_KEY.get();
        Thread thread = Thread.currentThread();
        return new Caller(LockScope.LEASE, key,
                new LockOwner(host, lifecycle.instanceId, "t" + key.sequence + ":" + abbreviate(thread.getName(), 100)), null, thread);
    }

    private <T> T backendCall(java.util.function.Supplier<T> call, String what) {
        return backend.call(call, what);
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

    /** Identity of a thread as lock owner; unique for the JVM's lifetime, unlike thread ids. */
    private static final class ThreadKey {
        final long sequence;

        ThreadKey(long sequence) {
            this.sequence = sequence;
        }
    }
}
