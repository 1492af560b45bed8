package io.txlock.core;

import io.txlock.LockHandle;
import io.txlock.LockHealth;
import io.txlock.LockInfo;
import io.txlock.LockInterruptedException;
import io.txlock.LockManager;
import io.txlock.LockMetrics;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.LockTimeoutException;
import io.txlock.LockMetrics.Acquire;
import io.txlock.spi.CallerTransaction;
import io.txlock.spi.LockOwner;
import io.txlock.spi.LockProvider;
import io.txlock.spi.TransactionSupport;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;

/**
 * The one implementation of {@link LockManager}, for every {@link LockProvider}: the facade over the core's pieces,
 * and their lifecycle. Use {@link LockManager#builder}.
 *
 * <ul>
 *   <li>{@link Contender}: one acquire's attempt step, run by a {@link BlockingDriver} or an {@link AsyncDriver};
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
    private final Contender.Context contenders;
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
        Backend backend = new Backend(provider);
        this.names = new LocalNames(provider, metrics);
        this.holdings = new Holdings(names, backend, lifecycle, metrics);
        this.contenders = new Contender.Context(names, holdings, backend, blocking, lifecycle);
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
        LockMetrics metrics = this.metrics.acquireStarted(name, caller.scope());
        CompletableFuture<LockHandle> future = AsyncDriver.acquire(contender(name, caller, options, called, false),
                lifecycle, Contender.waitNanos(options.waitTime()));
        future.whenComplete((handle, failure) -> metrics.acquireEnded(caller.scope(), called, outcome((Handle) handle, failure)));
        return future;
    }

    /**
     * Asks the backend; where this manager holds the lock, its own knowledge fills in what the backend cannot
     * show (the hold count, and the owner of a row lock held by a still open transaction).
     */
    @Override
    public Optional<LockInfo> inspect(String name) {
        lifecycle.ensureOpen();
        LockNames.validate(name);
        return holdings.inspect(name, backendCall(() -> provider.inspect(name), name));
    }

    @Override
    public LockHealth health() {
        lifecycle.ensureOpen();
        String problem = null;
        try {
            backendCall(() -> provider.inspect(HEALTH_PROBE), HEALTH_PROBE);
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
        LockMetrics metrics = this.metrics.acquireStarted(name, caller.scope());
        Handle handle;
        try {
            handle = BlockingDriver.acquire(contender(name, caller, options, called, interruptible), interruptible);
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

    private Contender contender(String name, Caller caller, LockOptions options, long called, boolean interruptible) {
        return new Contender(contenders, names.ref(name), caller, options, called, interruptible);
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

    private <T> T backendCall(java.util.function.Supplier<T> call, String name) {
        return contenders.backend().call(call, "inspect", name);
    }

    private static void requireOptions(LockOptions options) {
        if (options == null) {
            throw new IllegalArgumentException("options must not be null: use LockOptions.defaults()");
        }
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
