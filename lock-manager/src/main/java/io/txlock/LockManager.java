package io.txlock;

import io.txlock.core.CoreLockManager;
import io.txlock.spi.LockProvider;
import io.txlock.spi.TransactionSupport;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.locks.Lock;

/**
 * Named distributed locks with fencing tokens, one API over every backend.
 *
 * <pre>{@code
 * LockManager locks = LockManager.builder(JdbcLockProvider.builder(dataSource).build()).build();
 * try (LockHandle lock = locks.acquire("order:42")) {
 *     process(order, lock.fencingToken());
 * }
 * }</pre>
 *
 * <p>The manager does reentry, waiting, transaction binding and lease renewal once for every backend; a
 * {@link LockProvider} only does the backend's atomic steps. Owners are the calling thread (or its
 * transaction, in {@link LockScope#TRANSACTION} scope) within this manager: two managers, in one JVM or on
 * one host, never share ownership. A thread that holds a lock re-enters it whatever its current transaction
 * (for example from a {@code REQUIRES_NEW} transaction nested in the holder's), instead of waiting for itself. Waiters of one name within a manager queue locally in FIFO order, so a
 * JVM sends one contender per name to the backend, not one per thread.
 *
 * <p>Metrics and observations are off unless configured with {@link Builder#metrics(LockMetrics)}: Micrometer's
 * meters and observations are in {@code io.txlock.micrometer}, for applications that have Micrometer on their class
 * path.
 *
 * <p>Names are 1 to 255 Unicode code points, without leading or trailing whitespace and without NUL. Thread
 * safe. Close it to stop its background threads; locks still held are released.
 *
 * <p>Interrupts: a thread interrupted before or while it waits gets {@link LockInterruptedException} at once,
 * holds nothing, and keeps its interrupt flag set; a wait blocked in the backend (a row lock) is cancelled there.
 * A closed manager answers every call with {@link IllegalStateException}; its waiters, also those blocked in
 * the backend, end with it, and none of them is granted the lock.
 */
public interface LockManager extends AutoCloseable {

    /**
     * @param provider the backend
     * @return a builder for a manager over {@code provider}
     */
    static Builder builder(LockProvider provider) {
        return new Builder(provider);
    }

    /**
     * Acquires with the manager's default options.
     *
     * @param name the lock name
     * @return the granted lock
     * @throws LockTimeoutException if not granted within the default wait
     * @throws LockBackendException if the backend failed or could not be reached
     * @throws IllegalArgumentException if the name is not valid
     */
    LockHandle acquire(String name);

    /**
     * @param name the lock name
     * @param options wait, lease, scope
     * @return the granted lock
     * @throws LockTimeoutException if not granted within {@code options.waitTime()}
     * @throws LockBackendException if the backend failed or could not be reached
     * @throws LockInterruptedException if the thread was interrupted while waiting
     * @throws IllegalArgumentException if the name or options are not valid
     * @throws IllegalStateException if {@link LockScope#TRANSACTION} was asked for outside a transaction
     */
    LockHandle acquire(String name, LockOptions options);

    /**
     * Acquires only if the lock is free now; never waits.
     *
     * @param name the lock name
     * @return the lock, or empty if another holder has it
     */
    Optional<LockHandle> tryAcquire(String name);

    /**
     * @param name the lock name
     * @param wait how long to wait at most
     * @return the lock, or empty if another holder kept it for {@code wait}
     */
    Optional<LockHandle> tryAcquire(String name, Duration wait);

    /**
     * @param name the lock name
     * @param options wait, lease, scope
     * @return the lock, or empty if another holder kept it for {@code options.waitTime()}
     */
    Optional<LockHandle> tryAcquire(String name, LockOptions options);

    /**
     * The compact form of {@link #tryAcquire(String, LockOptions)}: the manager's defaults with this wait and lease.
     *
     * @param name the lock name
     * @param wait how long to wait at most
     * @param lease how long the lock outlives a holder that stopped renewing it
     * @return the lock, or empty if another holder kept it for {@code wait}
     */
    default Optional<LockHandle> tryAcquire(String name, Duration wait, Duration lease) {
        return tryAcquire(name, defaults().withWait(wait).withLease(lease));
    }

    /**
     * Runs {@code work} holding the lock, and releases it afterwards, also when {@code work} throws.
     *
     * @param name the lock name
     * @param options wait, lease, scope
     * @param work what to run while holding it
     * @throws LockTimeoutException if not granted within {@code options.waitTime()} ({@code work} did not run)
     * @throws LockNotHeldException if the lock was lost while {@code work} ran: it may have overlapped with
     *     another holder's
     */
    default void withLock(String name, LockOptions options, Runnable work) {
        if (work == null) {
            throw new IllegalArgumentException("work must not be null");
        }
        callWithLock(name, options, () -> {
            work.run();
            return null;
        });
    }

    /**
     * Computes a result holding the lock, and releases it afterwards, also when {@code work} throws.
     *
     * @param <T> the result's type
     * @param name the lock name
     * @param options wait, lease, scope
     * @param work what to compute while holding it
     * @return what {@code work} returned
     * @throws LockTimeoutException if not granted within {@code options.waitTime()} ({@code work} did not run)
     * @throws LockNotHeldException if the lock was lost while {@code work} ran: it may have overlapped with
     *     another holder's
     */
    default <T> T callWithLock(String name, LockOptions options, java.util.function.Supplier<T> work) {
        if (work == null) {
            throw new IllegalArgumentException("work must not be null");
        }
        LockHandle lock = acquire(name, options);
        T result;
        try {
            result = work.get();
        } catch (RuntimeException | Error e) {
            try {
                lock.close();
            } catch (RuntimeException releaseFailed) {
                e.addSuppressed(releaseFailed);
            }
            throw e;
        }
        lock.release();
        return result;
    }

    /**
     * Scheduled-job semantics, as in ShedLock: runs {@code task} only if the lock is free now, on every node; the
     * lock lasts at most {@code lockAtMostFor} (a hard limit, not renewed: a hung or dead node cannot keep it
     * longer) and at least {@code lockAtLeastFor} from the start, so that nodes whose clocks or schedules differ
     * slightly do not run the task again right after it finished. A lock the caller holds already counts as held.
     *
     * @param name the lock name
     * @param lockAtMostFor how long the lock lasts at most
     * @param lockAtLeastFor how long it lasts at least, from the start of the task; at most {@code lockAtMostFor}
     * @param task the job
     * @return whether the task ran
     * @throws IllegalArgumentException if a duration is null, negative, or {@code lockAtLeastFor > lockAtMostFor}
     */
    default boolean runIfFree(String name, Duration lockAtMostFor, Duration lockAtLeastFor, Runnable task) {
        if (task == null) {
            throw new IllegalArgumentException("task must not be null");
        }
        if (lockAtLeastFor == null || lockAtLeastFor.isNegative() || lockAtMostFor == null
                || lockAtLeastFor.compareTo(lockAtMostFor) > 0) {
            throw new IllegalArgumentException("lockAtLeastFor must be zero or positive and at most lockAtMostFor, was "
                    + lockAtLeastFor + " with lockAtMostFor " + lockAtMostFor);
        }
        Optional<LockHandle> taken = tryAcquire(name, defaults().withWait(Duration.ZERO).withLease(lockAtMostFor)
                .withScope(LockScope.LEASE).withAutoRenew(false));
        if (taken.isEmpty()) {
            return false;
        }
        LockHandle lock = taken.get();
        if (lock.holdCount() > 1) {
            lock.release();
            return false;
        }
        long start = System.nanoTime();
        try {
            task.run();
        } finally {
            Duration keep = lockAtLeastFor.minusNanos(System.nanoTime() - start);
            if (keep.isNegative() || keep.isZero() || !lock.isValid()) {
                lock.release();
            } else {
                keepThenRelease(lock, keep);
            }
        }
        return true;
    }

    /**
     * Keeps {@code lock} for {@code keep} more and then releases it, on the JDK's shared delay thread. The lease
     * outlasts the release by up to a second, so the release finds the lock still held, but never beyond the lease
     * the lock had ({@code lockAtMostFor}): where that is too close to let the release come first, the lock ends
     * with its lease.
     */
    private static void keepThenRelease(LockHandle lock, Duration keep) {
        Duration hardLimitLeft = Duration.between(java.time.Instant.now(), lock.expiresAt());
        Duration lease = keep.plusSeconds(1).compareTo(hardLimitLeft) < 0 ? keep.plusSeconds(1) : hardLimitLeft;
        if (lease.compareTo(keep) > 0) {
            lock.extend(lease);
        }
        java.util.concurrent.CompletableFuture.delayedExecutor(keep.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS)
                .execute(() -> {
                    try {
                        lock.release();
                    } catch (RuntimeException e) {
                        org.slf4j.LoggerFactory.getLogger(LockManager.class).warn("runIfFree could not release {} once"
                                + " lockAtLeastFor was over; its lease ends it: {}", lock, e.toString());
                    }
                });
    }

    /**
     * Acquires without blocking the caller: the stage completes when the lock is granted, or exceptionally
     * with {@link LockTimeoutException} or {@link LockBackendException}. Waiting costs no thread per waiter.
     * Cancelling the returned future (via {@code toCompletableFuture().cancel}) withdraws the request; a lock
     * granted after that is released at once.
     *
     * @param name the lock name
     * @param options wait, lease, scope
     * @return the pending grant
     */
    CompletionStage<LockHandle> acquireAsync(String name, LockOptions options);

    /**
     * @param name the lock name
     * @return the pending grant, with the manager's default options
     */
    CompletionStage<LockHandle> acquireAsync(String name);

    /**
     * @param name the lock name
     * @return who holds the lock, with its token and lease, or empty if nobody does
     * @throws LockBackendException if the backend failed or could not be reached
     */
    Optional<LockInfo> inspect(String name);

    /**
     * A {@link Lock} view of one name, for code written against {@code java.util.concurrent}. The owner is the
     * calling thread (or its transaction); {@code unlock} must come from the owner. {@code newCondition} is
     * not supported.
     *
     * @param name the lock name
     * @return the view; cheap, create as many as you like
     */
    Lock asLock(String name);

    /**
     * Checks the backend with one read (the {@link #inspect} of a name nobody holds) and reports this manager's
     * state. Never throws for a backend failure: that is what it reports.
     *
     * @return what the check found
     */
    LockHealth health();

    /** @return the options used where none are given */
    LockOptions defaults();

    /** @return this manager's random instance id, part of every owner id it writes */
    String instanceId();

    /**
     * Releases every lock this manager still holds, ends its waiters (with {@link IllegalStateException}) and
     * cancels their waits in the backend, stops its threads, and closes the provider. Closing twice does nothing.
     */
    @Override
    void close();

    /** Configures a {@link LockManager}. */
    final class Builder {
        private final LockProvider provider;
        private LockOptions defaults = LockOptions.defaults();
        private TransactionSupport transactions;
        private String ownerHost;
        private LockMetrics metrics = LockMetrics.none();
        private ScheduledExecutorService scheduler;
        private Executor executor;

        private Builder(LockProvider provider) {
            if (provider == null) {
                throw new IllegalArgumentException("provider must not be null: pass a JdbcLockProvider or another LockProvider");
            }
            this.provider = provider;
        }

        /**
         * @param defaults options used where a call gives none
         * @return this builder
         */
        public Builder defaults(LockOptions defaults) {
            if (defaults == null) {
                throw new IllegalArgumentException("defaults must not be null: use LockOptions.defaults()");
            }
            this.defaults = defaults;
            return this;
        }

        /**
         * @param transactions how to find the caller's transaction; by default those the provider was built over
         *     ({@link LockProvider#transactions()}), else the JTA support when {@code jakarta.transaction} is on the
         *     class path (it looks for the container's registry when a lock is taken), else none
         * @return this builder
         */
        public Builder transactions(TransactionSupport transactions) {
            if (transactions == null) {
                throw new IllegalArgumentException("transactions must not be null: use TransactionSupport.none()");
            }
            this.transactions = transactions;
            return this;
        }

        /**
         * @param ownerHost the host name written as owner; by default the local host name
         * @return this builder
         */
        public Builder ownerHost(String ownerHost) {
            if (ownerHost == null || ownerHost.isBlank()) {
                throw new IllegalArgumentException("ownerHost must not be blank");
            }
            this.ownerHost = ownerHost;
            return this;
        }

        /**
         * Reports the manager's locks to {@code metrics} (by default to nowhere): Micrometer meters
         * ({@code io.txlock.micrometer.MicrometerLockMetrics}), Micrometer observations
         * ({@code io.txlock.micrometer.MicrometerLockObservations}), or a {@link LockMetrics} of your own. Each call
         * adds one: a manager may record meters and observations at once.
         *
         * <pre>{@code
         * LockManager locks = LockManager.builder(provider)
         *         .metrics(MicrometerLockMetrics.of(meterRegistry, provider))
         *         .metrics(MicrometerLockObservations.of(observationRegistry, provider))
         *         .build();
         * }</pre>
         *
         * @param metrics where the manager reports acquires, holdings, renewals and losses; called on the lock's hot
         *     path, it must be quick and must not throw
         * @return this builder
         * @throws IllegalArgumentException if {@code metrics} is null
         */
        public Builder metrics(LockMetrics metrics) {
            if (metrics == null) {
                throw new IllegalArgumentException("metrics must not be null: leave it unset to record none");
            }
            this.metrics = LockMetrics.all(this.metrics, metrics);
            return this;
        }

        /**
         * Runs the manager's timers (wait timeouts, backoff pauses, lease renewals coming due) on {@code scheduler}
         * instead of a timer thread of its own, for example a container's {@code ManagedScheduledExecutorService}.
         * Without an {@link #executor(Executor)}, the scheduler also runs the work (attempts of asynchronous waits,
         * renewals, {@code onLost} listeners), and the manager starts no thread at all. {@link LockManager#close()}
         * does not shut it down: its owner does, after closing the manager.
         *
         * @param scheduler where timers run; its tasks are short and never block
         * @return this builder
         * @throws IllegalArgumentException if {@code scheduler} is null
         */
        public Builder scheduler(ScheduledExecutorService scheduler) {
            if (scheduler == null) {
                throw new IllegalArgumentException("scheduler must not be null: leave it unset for a timer thread of the manager's own");
            }
            this.scheduler = scheduler;
            return this;
        }

        /**
         * Runs the manager's work (attempts of asynchronous waits, which may block in the backend, lease renewals,
         * {@code onLost} listeners) on {@code executor} instead of worker threads of its own, for example a
         * container's {@code ManagedExecutorService}, or {@code Executors.newVirtualThreadPerTaskExecutor()}.
         * Together with {@link #scheduler(ScheduledExecutorService)} the manager starts no thread at all.
         * {@link LockManager#close()} does not shut it down.
         *
         * @param executor where work runs; it should not queue tasks behind long-blocked ones
         * @return this builder
         * @throws IllegalArgumentException if {@code executor} is null
         */
        public Builder executor(Executor executor) {
            if (executor == null) {
                throw new IllegalArgumentException("executor must not be null: leave it unset for worker threads of the manager's own");
            }
            this.executor = executor;
            return this;
        }

        /**
         * @return a new manager; close it when done
         * @throws IllegalArgumentException if the manager was given other transactions than those the provider was
         *     built over
         */
        public LockManager build() {
            TransactionSupport providers = provider.transactions().orElse(null);
            if (transactions != null && providers != null && transactions != providers) {
                throw new IllegalArgumentException("the provider was built over " + providers + ", the transactions its"
                        + " TRANSACTION-scoped locks join, but the manager was given " + transactions + ": give the manager"
                        + " no transactions (it then uses the provider's) or the same ones");
            }
            return new CoreLockManager(provider, defaults,
                    transactions != null ? transactions : providers != null ? providers : TransactionSupport.discover(),
                    ownerHost != null ? ownerHost : CoreLockManager.localHostName(), metrics, scheduler, executor);
        }
    }
}
