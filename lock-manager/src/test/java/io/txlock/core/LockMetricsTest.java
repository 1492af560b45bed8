package io.txlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.txlock.LockBackendException;
import io.txlock.LockHandle;
import io.txlock.LockInterruptedException;
import io.txlock.LockManager;
import io.txlock.LockNotHeldException;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.LockTimeoutException;
import io.txlock.Strategy;
import io.txlock.jdbc.JdbcLockProvider;
import io.txlock.jdbc.JdbcTransactions;
import io.txlock.micrometer.MicrometerLockMetrics;
import io.txlock.spi.LockProvider;
import io.txlock.spi.TransactionSupport;
import io.txlock.testkit.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The core's metrics, recorded in Micrometer's real {@link SimpleMeterRegistry} by managers over real providers (H2
 * through the JDBC provider, and the kit's lock files): acquire outcomes, holdings and waiters now, locks lost and
 * renewals, each counted where the core decides it. Counts only: no assertion on how long anything took.
 */
@Timeout(120)
class LockMetricsTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final LockOptions LEASE = LockOptions.defaults().withScope(LockScope.LEASE).withWait(PATIENCE);

    @TempDir
    Path dir;

    private HikariDataSource h2;
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<LockManager> managers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();

    @BeforeEach
    void startH2() {
        h2 = TestDatabase.inMemoryH2("metrics", 8);
    }

    @AfterEach
    void close() throws InterruptedException {
        for (Thread t : threads) {
            t.interrupt();
            t.join(PATIENCE.toMillis());
        }
        Collections.reverse(managers);
        managers.forEach(LockManager::close);
        h2.close();
        registry.close();
    }

    private Supplier<LockProvider> providers(CoreBackend backend) {
        return backend.providers(h2, dir);
    }

    /** A manager that records its metrics in {@link #registry}. */
    private LockManager measured(LockProvider provider) {
        return keep(LockManager.builder(provider).transactions(TransactionSupport.none())
                .metrics(MicrometerLockMetrics.of(registry, provider)).build());
    }

    /** Another node, without metrics. */
    private LockManager other(LockProvider provider) {
        return keep(LockManager.builder(provider).transactions(TransactionSupport.none()).build());
    }

    private LockManager keep(LockManager manager) {
        managers.add(manager);
        return manager;
    }

    @ParameterizedTest
    @EnumSource(CoreBackend.class)
    void grantsReentriesAndTimeoutsAreTimedAndTheHeldGaugeReturnsToZero(CoreBackend backend) {
        Supplier<LockProvider> providers = providers(backend);
        LockManager locks = measured(providers.get());
        LockManager otherNode = other(providers.get());
        assertThat(registry.get("txlock.acquire").tag("provider", backend.kind).timers())
                .as("acquire timers registered up front, one per scope and outcome").hasSize(12);
        assertThat(held()).as("held before any lock").isZero();

        LockHandle first = locks.acquire("order:1", LEASE);
        LockHandle again = locks.acquire("order:1", LEASE);
        LockHandle second = locks.tryAcquire("order:2", LEASE).orElseThrow();
        assertThat(again.holdCount()).isEqualTo(2);
        assertThat(acquires("granted", false)).as("granted by the backend").isEqualTo(2);
        assertThat(acquires("granted", true)).as("granted by reentry").isEqualTo(1);
        assertThat(held()).as("holdings, not handles: two names, one of them re-entered").isEqualTo(2);

        LockHandle elsewhere = otherNode.acquire("order:3", LEASE);
        assertThat(locks.tryAcquire("order:3")).as("'order:3' held by another node").isEmpty();
        assertThatThrownBy(() -> locks.acquire("order:3", LEASE.withWait(Duration.ofMillis(50))))
                .isInstanceOf(LockTimeoutException.class);
        assertThat(acquires("timeout", false)).as("tryAcquire and acquire that were not granted").isEqualTo(2);
        assertThat(locks.asLock("order:3").tryLock()).as("the j.u.c view of 'order:3'").isFalse();
        assertThat(acquires("timeout", false)).as("timeouts after the j.u.c view's tryLock").isEqualTo(3);
        elsewhere.release();

        again.release();
        assertThat(held()).as("held after one of two reentrant handles was released").isEqualTo(2);
        first.release();
        second.release();
        assertThat(held()).as("held after every lock was released").isZero();
        assertThat(heldTimer().count()).as("holdings timed: one per holding, not per handle").isEqualTo(2);
        assertThat(waiting()).as("waiting at the end").isZero();
        assertThat(sum("txlock.lost")).as("locks lost").isZero();
        assertThat(acquires("failed", false) + acquires("interrupted", false) + acquires("cancelled", false))
                .as("acquires that failed, were interrupted or cancelled").isZero();
        assertThat(registry.get("txlock.acquire").tags("scope", "transaction").timers())
                .as("no TRANSACTION scope acquire without a transaction").allSatisfy(t -> assertThat(t.count()).isZero());
        assertThat(registry.getMeters()).as("meters tagged with a lock name")
                .noneMatch(m -> m.getId().getTags().stream().anyMatch(t -> t.getValue().startsWith("order:")));
    }

    @ParameterizedTest
    @EnumSource(CoreBackend.class)
    void callersWaitingLocallyAreCountedUntilGrantedCancelledOrInterrupted(CoreBackend backend) throws Exception {
        String name = "contended";
        Supplier<LockProvider> providers = providers(backend);
        LockManager locks = measured(providers.get());
        LockManager holderNode = other(providers.get());
        LockHandle held = holderNode.acquire(name, LEASE);

        AtomicReference<Long> syncToken = new AtomicReference<>();
        Thread syncWaiter = start("sync-waiter", () -> {
            try (LockHandle h = locks.acquire(name, LEASE)) {
                syncToken.set(h.fencingToken());
            }
        });
        CompletableFuture<LockHandle> asyncWaiter = locks.acquireAsync(name, LEASE).toCompletableFuture();
        Awaitility.await("a thread and a future waiting for '" + name + "'").atMost(PATIENCE).until(() -> waiting() == 2);

        CompletableFuture<LockHandle> cancelled = locks.acquireAsync(name, LEASE).toCompletableFuture();
        AtomicReference<Throwable> interruptedWith = new AtomicReference<>();
        CountDownLatch interruptedDone = new CountDownLatch(1);
        Thread interrupted = start("interrupted-waiter", () -> {
            try {
                locks.acquire(name, LEASE).release();
            } catch (RuntimeException e) {
                interruptedWith.set(e);
            } finally {
                interruptedDone.countDown();
            }
        });
        Awaitility.await("four callers waiting for '" + name + "'").atMost(PATIENCE).until(() -> waiting() == 4);
        assertThat(cancelled.cancel(true)).isTrue();
        interrupted.interrupt();
        assertThat(interruptedDone.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        assertThat(interruptedWith.get()).isInstanceOf(LockInterruptedException.class);
        Awaitility.await("the cancelled and the interrupted callers gone from the queue").atMost(PATIENCE)
                .until(() -> waiting() == 2);
        assertThat(acquires("cancelled", false)).isEqualTo(1);
        assertThat(acquires("interrupted", false)).isEqualTo(1);
        assertThat(held()).as("held by the measured manager while its callers wait").isZero();

        held.release();
        LockHandle asyncHandle = asyncWaiter.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        asyncHandle.release();
        syncWaiter.join(PATIENCE.toMillis());
        assertThat(syncToken.get()).as("token granted to the waiting thread").isNotNull();
        assertThat(waiting()).as("waiting once both were granted").isZero();
        assertThat(held()).as("held once both released").isZero();
        assertThat(acquires("granted", false)).as("granted after waiting").isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(CoreBackend.class)
    void renewalsAreCountedAndALeaseThatRunsOutIsCountedLost(CoreBackend backend) {
        Supplier<LockProvider> providers = providers(backend);
        LockManager locks = measured(providers.get());

        LockHandle renewed = locks.acquire("renewed", LEASE.withLease(Duration.ofMillis(600)));
        Awaitility.await("two background renewals").atMost(PATIENCE).until(() -> renewals("ok") >= 2);
        renewed.extend(Duration.ofSeconds(5));
        assertThat(renewed.isValid()).isTrue();
        renewed.release();

        LockHandle limited = locks.acquire("limited", LEASE.withLease(Duration.ofMillis(300)).withAutoRenew(false));
        Awaitility.await("the lease of a lock not renewed ran out").atMost(PATIENCE).until(() -> lost("lease_expired") == 1);
        assertThat(limited.isValid()).isFalse();
        assertThatThrownBy(limited::release).isInstanceOf(LockNotHeldException.class);
        assertThat(held()).as("held after the loss and the release").isZero();
        assertThat(heldTimer().count()).as("holdings timed, the lost one included").isEqualTo(2);
        assertThat(renewals("refused") + renewals("failed")).as("renewals refused or failed").isZero();
        assertThat(sum("txlock.lost")).as("locks lost in all").isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(CoreBackend.class)
    void aRenewalTheBackendRefusesIsCountedAndTheLockLost(CoreBackend backend) throws Exception {
        String name = "taken-away";
        Supplier<LockProvider> providers = providers(backend);
        LockManager locks = measured(providers.get());
        // no background renewal: the extend below is the one renewal that meets the lock taken away
        LockHandle held = locks.acquire(name, LEASE.withLease(Duration.ofSeconds(30)).withAutoRenew(false));
        CountDownLatch lost = new CountDownLatch(1);
        held.onLost(lost::countDown);

        takeAway(backend, name);
        assertThatThrownBy(() -> held.extend(Duration.ofSeconds(30))).isInstanceOf(LockNotHeldException.class);
        assertThat(lost.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        assertThat(renewals("refused")).as("renewals refused").isEqualTo(1);
        assertThat(lost("renewal_refused")).as("locks lost to a refused renewal").isEqualTo(1);
        assertThat(held()).as("held after the loss").isZero();
    }

    @Test
    void aTransactionScopedLockIsHeldUntilItsTransactionEnds() throws Exception {
        JdbcTransactions tx = JdbcTransactions.over(h2);
        LockProvider provider = JdbcLockProvider.builder(tx).strategy(Strategy.SELECT_FOR_UPDATE).reaperPeriod(Duration.ZERO).build();
        LockManager locks = keep(LockManager.builder(provider).transactions(tx).metrics(MicrometerLockMetrics.of(registry, provider))
                .build());
        for (boolean commit : new boolean[] {true, false}) {
            try {
                tx.inTransaction(connection -> {
                    locks.acquire("account:7").release();
                    locks.acquire("account:7");
                    assertThat(held()).as("held inside the transaction, after a release that only counted down").isEqualTo(1);
                    if (!commit) {
                        throw new IllegalStateException("roll back");
                    }
                    return null;
                });
            } catch (IllegalStateException rolledBack) {
                assertThat(commit).isFalse();
            }
            assertThat(held()).as("held after the transaction ended (commit %s)", commit).isZero();
        }
        Timer granted = registry.get("txlock.acquire")
                .tags("scope", "transaction", "outcome", "granted", "reentrant", "false").timer();
        assertThat(granted.count()).as("TRANSACTION scope acquires granted by the backend").isEqualTo(2);
        assertThat(registry.get("txlock.acquire").tags("scope", "transaction", "reentrant", "true").timer().count())
                .as("TRANSACTION scope reentries").isEqualTo(2);
        assertThat(registry.get("txlock.held").tags("scope", "transaction").timer().count())
                .as("TRANSACTION scope holdings timed").isEqualTo(2);
    }

    @Test
    void aBackendFailureIsCountedFailedNotTimedOut() {
        LockManager locks = measured(providers(CoreBackend.H2_OPTIMISTIC_VERSION).get());
        locks.acquire("before", LEASE).release();
        h2.close();
        assertThatThrownBy(() -> locks.acquire("after", LEASE)).isInstanceOf(LockBackendException.class);
        assertThat(acquires("failed", false)).as("acquires failed in the backend").isEqualTo(1);
        assertThat(acquires("timeout", false)).as("acquires timed out").isZero();
        assertThat(waiting()).as("waiting after the failure").isZero();
        assertThat(held()).isZero();
    }

    @Test
    void managersSharingARegistryAddUpInTheGaugesAndTheirOwnTagsSetThemApart() {
        Supplier<LockProvider> providers = providers(CoreBackend.LOCK_FILES);
        LockManager one = measured(providers.get());
        LockManager two = measured(providers.get());
        LockProvider files = providers.get();
        LockManager tagged = keep(LockManager.builder(files).transactions(TransactionSupport.none())
                .metrics(MicrometerLockMetrics.of(registry, files, List.of(Tag.of("db", "orders")))).build());
        LockHandle a = one.acquire("a", LEASE);
        LockHandle b = two.acquire("b", LEASE);
        LockHandle c = tagged.acquire("c", LEASE);
        assertThat(held()).as("held by the two untagged managers").isEqualTo(2);
        assertThat(registry.get("txlock.held.active").tags("provider", "file", "db", "orders").gauge().value())
                .as("held by the tagged manager").isEqualTo(1);
        a.release();
        b.release();
        c.release();
        assertThat(held()).isZero();
        MicrometerLockMetrics.of(registry, JdbcLockProvider.builder(h2).reaperPeriod(Duration.ZERO).build());
        assertThat(registry.find("txlock.held.active").tags("provider", "jdbc").gauge()).as("a JDBC manager's gauge").isNotNull();
    }

    /** Someone else takes the lock behind its holder's back, in the backend itself. */
    private void takeAway(CoreBackend backend, String name) throws SQLException, IOException {
        switch (backend) {
            case H2_OPTIMISTIC_VERSION -> {
                try (Connection c = h2.getConnection();
                        PreparedStatement update = c.prepareStatement("UPDATE method_lock SET owner_id = 'thief' WHERE name = ?")) {
                    update.setString(1, name);
                    assertThat(update.executeUpdate()).as("rows of '%s' taken", name).isEqualTo(1);
                }
            }
            case LOCK_FILES -> {
                try (Stream<Path> files = Files.list(dir)) {
                    for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".lock")).toList()) {
                        Files.delete(file);
                    }
                }
            }
        }
    }

    private Thread start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        threads.add(t);
        t.start();
        return t;
    }

    private double acquires(String outcome, boolean reentrant) {
        return registry.get("txlock.acquire").tags("scope", "lease", "outcome", outcome, "reentrant", Boolean.toString(reentrant))
                .timer().count();
    }

    private double held() {
        return gauge("txlock.held.active");
    }

    private double waiting() {
        return gauge("txlock.waiting");
    }

    /** The gauge of the managers built by {@link #measured}: tagged with their provider only. */
    private double gauge(String name) {
        List<Gauge> untagged = registry.get(name).gauges().stream().filter(g -> g.getId().getTags().size() == 1).toList();
        assertThat(untagged).as("'%s' gauges tagged with the provider only", name).hasSize(1);
        return untagged.get(0).value();
    }

    private Timer heldTimer() {
        return registry.get("txlock.held").tags("scope", "lease").timer();
    }

    private double lost(String reason) {
        return registry.get("txlock.lost").tags("reason", reason).counter().count();
    }

    private double renewals(String outcome) {
        return registry.get("txlock.renewals").tags("outcome", outcome).counter().count();
    }

    private double sum(String name) {
        return registry.get(name).counters().stream().mapToDouble(c -> c.count()).sum();
    }
}
