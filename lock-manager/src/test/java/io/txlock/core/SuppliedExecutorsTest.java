package io.txlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.jdbc.JdbcLockProvider;
import io.txlock.testkit.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A manager given a scheduler and an executor ({@link LockManager.Builder#scheduler},
 * {@link LockManager.Builder#executor}) runs its timers, renewals, asynchronous attempts and listeners on them and
 * starts no thread of its own; closing it leaves them running for their owner.
 */
@Timeout(120)
class SuppliedExecutorsTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private HikariDataSource h2;
    private ScheduledExecutorService scheduler;
    private ExecutorService executor;
    private final Set<String> supplierThreads = ConcurrentHashMap.newKeySet();

    @BeforeEach
    void start() {
        h2 = TestDatabase.inMemoryH2("supplied", 8);
        scheduler = Executors.newScheduledThreadPool(1, named("supplied-timer"));
        executor = Executors.newCachedThreadPool(named("supplied-worker"));
    }

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
        executor.shutdownNow();
        h2.close();
    }

    @Test
    void renewalsAsyncWaitsAndListenersRunOnTheSuppliedExecutorsAndNoThreadOfTheManagersOwnStarts() throws Exception {
        LockManager a = manager(LockManager.builder(provider()).scheduler(scheduler).executor(executor));
        LockManager b = manager(LockManager.builder(provider()).scheduler(scheduler).executor(executor));
        try {
            LockHandle held = a.acquire("supplied", LockOptions.defaults().withScope(LockScope.LEASE)
                    .withLease(Duration.ofMillis(600)));
            Instant firstExpiry = held.expiresAt();
            Awaitility.await().atMost(PATIENCE).until(() -> held.expiresAt().isAfter(firstExpiry));

            CompletableFuture<String> waiterThread = b.acquireAsync("supplied", LockOptions.defaults()
                    .withScope(LockScope.LEASE).withWait(PATIENCE)).toCompletableFuture()
                    .thenApply(handle -> {
                        handle.release();
                        return Thread.currentThread().getName();
                    });
            CompletableFuture<String> listenerThread = new CompletableFuture<>();
            held.onLost(() -> listenerThread.complete(Thread.currentThread().getName()));
            LockHandle shortLived = a.acquire("supplied-hard", LockOptions.defaults().withScope(LockScope.LEASE)
                    .withLease(Duration.ofMillis(300)).withAutoRenew(false));
            CompletableFuture<String> lostThread = new CompletableFuture<>();
            shortLived.onLost(() -> lostThread.complete(Thread.currentThread().getName()));

            assertThat(lostThread.get(30, TimeUnit.SECONDS)).as("the lease end's listener").startsWith("supplied-");
            assertThat(ownThreads(a, b)).as("threads of the managers' own while they hold, renew and wait").isEmpty();
            held.release();
            assertThat(waiterThread.get(30, TimeUnit.SECONDS)).as("the async waiter's grant").startsWith("supplied-");
            assertThat(listenerThread).as("a released lock's listener never runs").isNotDone();
            assertThat(ownThreads(a, b)).isEmpty();
        } finally {
            a.close();
            b.close();
        }
        assertThat(scheduler.isShutdown()).as("close() leaves the supplied scheduler to its owner").isFalse();
        assertThat(executor.isShutdown()).as("close() leaves the supplied executor to its owner").isFalse();
        assertThat(scheduler.submit(() -> "still runs").get(30, TimeUnit.SECONDS)).isEqualTo("still runs");
    }

    @Test
    void aSchedulerAloneRunsTheWorkTooAndAnExecutorAloneKeepsOnlyATimerThreadOfTheManagersOwn() throws Exception {
        try (LockManager schedulerOnly = LockManager.builder(provider()).scheduler(scheduler).build()) {
            LockHandle held = schedulerOnly.acquire("alone", LockOptions.defaults().withScope(LockScope.LEASE)
                    .withLease(Duration.ofMillis(600)));
            Instant firstExpiry = held.expiresAt();
            Awaitility.await().atMost(PATIENCE).until(() -> held.expiresAt().isAfter(firstExpiry));
            assertThat(ownThreads(schedulerOnly)).isEmpty();
            held.release();
        }
        try (LockManager executorOnly = LockManager.builder(provider()).executor(executor).build()) {
            LockHandle held = executorOnly.acquire("alone", LockOptions.defaults().withScope(LockScope.LEASE)
                    .withLease(Duration.ofMillis(600)));
            Instant firstExpiry = held.expiresAt();
            Awaitility.await().atMost(PATIENCE).until(() -> held.expiresAt().isAfter(firstExpiry));
            assertThat(ownThreads(executorOnly)).allMatch(name -> name.contains("-timer-"));
            held.release();
        }
        assertThat(executor.isShutdown()).isFalse();
    }

    @Test
    void withoutSuppliedExecutorsTheManagerRunsThreadsOfItsOwnAndStopsThemAtClose() {
        LockManager own = LockManager.builder(provider()).build();
        LockHandle held = own.acquire("own", LockOptions.defaults().withScope(LockScope.LEASE)
                .withLease(Duration.ofMillis(600)));
        Instant firstExpiry = held.expiresAt();
        Awaitility.await().atMost(PATIENCE).until(() -> held.expiresAt().isAfter(firstExpiry));
        assertThat(ownThreads(own)).isNotEmpty();
        own.close();
        Awaitility.await().atMost(PATIENCE).until(() -> ownThreads(own).isEmpty());
    }

    private JdbcLockProvider provider() {
        return JdbcLockProvider.builder(h2).strategy(Strategy.OPTIMISTIC_VERSION).reaperPeriod(Duration.ZERO).build();
    }

    private static LockManager manager(LockManager.Builder builder) {
        return builder.build();
    }

    private static List<String> ownThreads(LockManager... managers) {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> java.util.Arrays.stream(managers).anyMatch(m -> name.startsWith("txlock-" + m.instanceId() + "-")))
                .toList();
    }

    private ThreadFactory named(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            supplierThreads.add(t.getName());
            return t;
        };
    }

    @Test
    void aSchedulerOfOneShotTimersOnlyServesWaitsInTheDatabaseAndTheirInterrupts() throws Exception {
        ScheduledExecutorService oneShot = new java.util.concurrent.ScheduledThreadPoolExecutor(1, named("one-shot-timer")) {
            @Override
            public java.util.concurrent.ScheduledFuture<?> scheduleWithFixedDelay(Runnable r, long first, long delay, TimeUnit unit) {
                throw new UnsupportedOperationException("one-shot timers only, as a resource adapter's");
            }

            @Override
            public java.util.concurrent.ScheduledFuture<?> scheduleAtFixedRate(Runnable r, long first, long period, TimeUnit unit) {
                throw new UnsupportedOperationException("one-shot timers only, as a resource adapter's");
            }
        };
        // H2 over TCP, as the contract kit uses it: an embedded H2 waiting for a row lock swallows its thread's interrupt
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.H2).withLockTable("method_lock");
                LockManager holder = LockManager.builder(JdbcLockProvider.builder(db.dataSource()).strategy(Strategy.SELECT_FOR_UPDATE)
                        .reaperPeriod(Duration.ZERO).build()).build();
                LockManager waiter = LockManager.builder(JdbcLockProvider.builder(db.dataSource()).strategy(Strategy.SELECT_FOR_UPDATE)
                        .reaperPeriod(Duration.ZERO).build()).scheduler(oneShot).executor(executor).build()) {
            LockHandle held = holder.acquire("one-shot", LockOptions.defaults().withScope(LockScope.LEASE));
            CompletableFuture<String> outcome = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    waiter.acquire("one-shot", LockOptions.defaults().withWait(PATIENCE));
                    outcome.complete("granted");
                } catch (io.txlock.LockInterruptedException e) {
                    outcome.complete("interrupted");
                } catch (RuntimeException e) {
                    outcome.complete("failed: " + e);
                }
            });
            t.start();
            Thread.sleep(300); // not a synchronisation: the interrupt must work whenever it comes
            t.interrupt();
            assertThat(outcome.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("a waiter blocked in the database, interrupted").isEqualTo("interrupted");
            CompletableFuture<LockHandle> next = CompletableFuture.supplyAsync(
                    () -> waiter.acquire("one-shot", LockOptions.defaults().withWait(PATIENCE)));
            held.release();
            next.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).release();
        } finally {
            oneShot.shutdownNow();
        }
    }
}
