package io.txlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockMetrics;
import io.txlock.LockOptions;
import io.txlock.Strategy;
import io.txlock.jdbc.JdbcLockProvider;
import io.txlock.testkit.TestDatabase;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** withLock, callWithLock, runIfFree and the compact tryAcquire, on a real lock table, seen from a second node. */
class LockHelpersTest {

    private final HikariDataSource h2 = TestDatabase.inMemoryH2("helpers", 8);
    private final LockManager node = manager();
    private final LockManager other = manager();

    @AfterEach
    void close() {
        node.close();
        other.close();
        h2.close();
    }

    private LockManager manager() {
        return LockManager.builder(JdbcLockProvider.builder(h2).strategy(Strategy.OPTIMISTIC_VERSION).reaperPeriod(Duration.ZERO).build()).build();
    }

    @Test
    void withLockHoldsTheLockWhileTheWorkRunsAndReleasesItAfterwardsAlsoOnFailure() {
        node.withLock("job", LockOptions.defaults(), () -> assertThat(other.tryAcquire("job")).as("'job' while the work runs").isEmpty());
        assertThat(other.tryAcquire("job")).as("'job' after the work").hasValueSatisfying(LockHandle::release);
        assertThatThrownBy(() -> node.withLock("job", LockOptions.defaults(), () -> {
            throw new IllegalStateException("the work failed");
        })).hasMessage("the work failed");
        assertThat(other.tryAcquire("job")).as("'job' after the work failed").hasValueSatisfying(LockHandle::release);
        assertThat(node.callWithLock("job", LockOptions.defaults(), () -> other.tryAcquire("job").isPresent()))
                .as("whether another node got 'job' while callWithLock ran").isFalse();
        assertThatThrownBy(() -> node.withLock("job", LockOptions.defaults(), null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("work");
    }

    @Test
    void runIfFreeSkipsWhileHeldAndKeepsTheLockAtLeastAsLongAsAsked() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        try (LockHandle held = other.acquire("nightly")) {
            assertThat(node.runIfFree("nightly", Duration.ofSeconds(30), Duration.ZERO, runs::incrementAndGet))
                    .as("runIfFree while another node holds the lock").isFalse();
        }
        assertThat(runs).hasValue(0);
        Duration atLeast = Duration.ofMillis(800);
        long start = System.nanoTime();
        assertThat(node.runIfFree("nightly", Duration.ofSeconds(30), atLeast, runs::incrementAndGet)).as("runIfFree of a free lock").isTrue();
        assertThat(runs).hasValue(1);
        boolean ranAgain = node.runIfFree("nightly", Duration.ofSeconds(30), Duration.ZERO, runs::incrementAndGet);
        boolean otherRan = other.runIfFree("nightly", Duration.ofSeconds(30), Duration.ZERO, runs::incrementAndGet);
        if (System.nanoTime() - start < atLeast.toNanos()) {
            assertThat(ranAgain).as("the same thread's runIfFree within lockAtLeastFor").isFalse();
            assertThat(otherRan).as("another node's runIfFree within lockAtLeastFor").isFalse();
        }
        Awaitility.await("another node's runIfFree once lockAtLeastFor is over").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> other.runIfFree("nightly", Duration.ofSeconds(30), Duration.ZERO, runs::incrementAndGet));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("when another node could run the job again").isGreaterThanOrEqualTo(atLeast);
        assertThatThrownBy(() -> node.runIfFree("nightly", Duration.ofSeconds(1), Duration.ofSeconds(2), runs::incrementAndGet))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lockAtLeastFor");
    }

    @Test
    void runIfFreeReleasesTheLockItKeptAtLeastAsLongAsAskedAndNeverLosesIt() {
        java.util.List<LockMetrics.Lost> lost = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicLong releases = new java.util.concurrent.atomic.AtomicLong();
        try (LockManager watched = LockManager.builder(JdbcLockProvider.builder(h2).strategy(Strategy.OPTIMISTIC_VERSION)
                .reaperPeriod(Duration.ZERO).build()).metrics(new LockMetrics() {
                    @Override
                    public void lost(Lost reason) {
                        lost.add(reason);
                    }

                    @Override
                    public void releaseStarted(String name, long fencingToken) {
                        releases.incrementAndGet();
                    }
                }).build()) {
            for (int round = 0; round < 5; round++) {
                assertThat(watched.runIfFree("kept", Duration.ofSeconds(30), Duration.ofMillis(150), () -> { }))
                        .as("round %d: runIfFree of a free lock", round).isTrue();
                long released = round + 1;
                Awaitility.await("round " + round + ": the release once lockAtLeastFor is over").atMost(Duration.ofSeconds(30))
                        .until(() -> releases.get() == released);
                Awaitility.await("round " + round + ": the lock free again").atMost(Duration.ofSeconds(30))
                        .until(() -> other.tryAcquire("kept").map(h -> {
                            h.release();
                            return true;
                        }).orElse(false));
            }
            assertThat(lost).as("locks runIfFree reported lost").isEmpty();
        }
    }

    @Test
    void compactTryAcquireTakesWaitAndLease() {
        try (LockHandle held = node.tryAcquire("compact", Duration.ofSeconds(1), Duration.ofSeconds(7)).orElseThrow()) {
            assertThat(held.expiresAt()).as("the lease of a compact tryAcquire").isNotNull();
            assertThat(other.tryAcquire("compact", Duration.ZERO, Duration.ofSeconds(7))).as("'compact' while held").isEmpty();
        }
    }

    @Test
    void healthReportsTheBackendAndWhatTheManagerHoldsAndWaitsFor() throws Exception {
        io.txlock.LockHealth idle = node.health();
        assertThat(idle.isUp()).as("health of a manager over a reachable database").isTrue();
        assertThat(idle.held()).isZero();
        try (LockHandle a = node.acquire("a"); LockHandle b = node.acquire("b")) {
            java.util.concurrent.CompletableFuture<LockHandle> waiting = other.acquireAsync("a", LockOptions.defaults()
                    .withWait(Duration.ofSeconds(30))).toCompletableFuture();
            Awaitility.await("the other node's caller waiting").atMost(Duration.ofSeconds(30))
                    .until(() -> other.health().waiting() > 0);
            assertThat(node.health().held()).as("locks held by the node").isEqualTo(2);
            assertThat(other.health().waiting()).as("callers of the other node waiting").isEqualTo(1);
            a.release();
            waiting.get(30, java.util.concurrent.TimeUnit.SECONDS).release();
        }
        org.h2.jdbcx.JdbcDataSource nowhere = new org.h2.jdbcx.JdbcDataSource();
        nowhere.setURL("jdbc:h2:tcp://127.0.0.1:1/mem:nowhere");
        try (LockManager broken = LockManager.builder(JdbcLockProvider.builder(nowhere).dialect(io.txlock.jdbc.JdbcDialect.H2)
                .reaperPeriod(Duration.ZERO).build()).build()) {
            io.txlock.LockHealth down = broken.health();
            assertThat(down.isUp()).as("health of a manager over an unreachable database").isFalse();
            assertThat(down.problem()).as("the problem it reports").isNotBlank();
        }
    }
}
