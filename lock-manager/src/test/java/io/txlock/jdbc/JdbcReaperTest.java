package io.txlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.spi.Attempt;
import io.txlock.spi.GrantListener;
import io.txlock.spi.LockOwner;
import io.txlock.spi.LockRequest;
import io.txlock.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The reaper: it deletes rows whose lease ran out in transactions of at most its batch size, spares live rows and
 * rows locked right now, runs on every node at once without failing or deleting a row twice, and runs by itself
 * in the background. Each test has a lock table of its own, so row counts are exact.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JdbcReaperTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final AtomicInteger TABLES = new AtomicInteger();
    private static final ExecutorService THREADS = Executors.newCachedThreadPool();

    private final List<TestDatabase> databases = new ArrayList<>();

    @BeforeAll
    void startDatabases() {
        for (TestDatabase.Kind kind : TestDatabase.Kind.values()) {
            databases.add(TestDatabase.create(kind));
        }
    }

    @AfterAll
    void dropDatabases() {
        THREADS.shutdownNow();
        databases.forEach(TestDatabase::close);
    }

    /** The strategies whose rows carry a lease; SELECT_FOR_UPDATE's locks are row locks, see the last test. */
    Stream<Arguments> leasedCombinations() {
        return databases.stream().flatMap(db -> Stream.of(Strategy.OPTIMISTIC_VERSION, Strategy.UNIQUE_INSERT)
                .map(s -> Arguments.of(db, s)));
    }

    Stream<TestDatabase> databases() {
        return databases.stream();
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("leasedCombinations")
    void expiredRowsGoInTransactionsOfAtMostTheBatchSizeAndLiveRowsStay(TestDatabase db, Strategy strategy) {
        String table = newTable(db);
        RecordingDataSource recording = new RecordingDataSource(db.dataSource());
        try (JdbcLockProvider provider = JdbcLockProvider.builder(recording).strategy(strategy).table(table)
                .reaperPeriod(Duration.ZERO).reaperBatchSize(7).build()) {
            expire(provider, "dead-", 25);
            Attempt live = provider.tryAcquire(request("live", "alive", Duration.ofMinutes(5)));
            Attempt done = provider.tryAcquire(request("released", "done", Duration.ofMinutes(5)));
            provider.release(done.grant());
            int before = recording.deletedPerCommit().size();

            assertThat(provider.reapExpired()).as("rows reaped").isEqualTo(25);
            List<Integer> batches = recording.deletedPerCommit();
            assertThat(batches.subList(before, batches.size())).as("rows deleted by each committed reaper transaction")
                    .containsExactly(7, 7, 7, 4);
            long kept = strategy == Strategy.UNIQUE_INSERT ? 1 : 2; // a released row stays FREE for its retention
            assertThat(rows(db, table)).as("rows left: the live lock%s", kept == 2 ? " and the released one" : "").isEqualTo(kept);
            assertThat(provider.reapExpired()).as("a second reaper run").isZero();
            assertThat(provider.inspect("live")).as("the live lock").hasValueSatisfying(info ->
                    assertThat(info.fencingToken()).isEqualTo(live.grant().fencingToken()));
            Attempt next = provider.tryAcquire(request("released", "next", Duration.ofMinutes(5)));
            assertThat(next.isGranted()).as("the released name").isTrue();
            provider.release(next.grant());
            provider.release(live.grant());
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("leasedCombinations")
    void twoReapersAtOnceNeverFailAndDeleteEveryRowOnce(TestDatabase db, Strategy strategy) throws Exception {
        String table = newTable(db);
        try (JdbcLockProvider first = provider(db, strategy, table, 10); JdbcLockProvider second = provider(db, strategy, table, 10)) {
            expire(first, "dead-", 200);
            Attempt live = first.tryAcquire(request("live", "alive", Duration.ofMinutes(5)));
            CyclicBarrier start = new CyclicBarrier(2);
            List<CompletableFuture<Integer>> reapers = new ArrayList<>();
            for (JdbcLockProvider reaper : List.of(first, second)) {
                reapers.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        start.await(30, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    return reaper.reapExpired();
                }, THREADS));
            }
            int deleted = 0;
            for (CompletableFuture<Integer> reaper : reapers) {
                deleted += reaper.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            }
            assertThat(deleted).as("rows the two reapers reported deleted").isEqualTo(200);
            assertThat(rows(db, table)).as("rows left: the live lock").isEqualTo(1);
            first.release(live.grant());
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("leasedCombinations")
    void aProviderWithAReaperPeriodReapsInTheBackground(TestDatabase db, Strategy strategy) {
        String table = newTable(db);
        String thread = "txlock-reaper-" + table;
        Attempt live;
        // rows made before the reaper starts: on H2 a reaper's transaction briefly locks the whole table, and a
        // zero-wait acquire then answers "held"
        try (JdbcLockProvider maker = provider(db, strategy, table, 5)) {
            expire(maker, "dead-", 12);
            live = maker.tryAcquire(request("live", "alive", Duration.ofMinutes(5)));
        }
        JdbcLockProvider provider = JdbcLockProvider.builder(db.dataSource()).strategy(strategy).table(table)
                .reaperPeriod(Duration.ofMillis(100)).reaperBatchSize(5).build();
        try (provider) {
            Awaitility.await("expired rows of " + table + " reaped in the background").atMost(PATIENCE)
                    .pollInterval(Duration.ofMillis(50)).until(() -> rows(db, table) == 1);
            assertThat(provider.inspect("live")).as("the live lock after the reaper ran").isPresent();
            assertThat(threadAlive(thread)).as("thread %s", thread).isTrue();
            provider.release(live.grant());
        }
        Awaitility.await("thread " + thread + " ended with its provider").atMost(PATIENCE).until(() -> !threadAlive(thread));
    }

    /**
     * SELECT_FOR_UPDATE's locks are row locks: a reaper must skip a row locked right now, never wait for it, and
     * never free the lock. One row here even looks reapable (its committed state is a lease that ran out, taken over
     * by a SELECT_FOR_UPDATE holder whose transaction is open), one is locked in a caller's transaction, and five are
     * expired leases the reaper deletes meanwhile.
     */
    @ParameterizedTest(name = "{0}", autoCloseArguments = false)
    @MethodSource("databases")
    void rowsLockedBySelectForUpdateHoldersAreSkippedWithoutWaiting(TestDatabase db) throws Exception {
        String table = newTable(db);
        JdbcTransactions tx = JdbcTransactions.over(db.dataSource());
        try (JdbcLockProvider leases = provider(db, Strategy.OPTIMISTIC_VERSION, table, 100);
                LockManager holder = LockManager.builder(JdbcLockProvider.builder(tx).table(table).reaperPeriod(Duration.ZERO)
                        .build()).transactions(tx).build();
                LockManager other = LockManager.builder(JdbcLockProvider.builder(db.dataSource()).table(table)
                        .reaperPeriod(Duration.ZERO).build()).build()) {
            expire(leases, "taken-over", 1);
            expire(leases, "dead-", 5);
            LockHandle takenOver = holder.acquire("taken-over0", LockOptions.defaults().withScope(LockScope.LEASE));
            CountDownLatch locked = new CountDownLatch(1);
            CountDownLatch reaped = new CountDownLatch(1);
            CompletableFuture<Void> inTransaction = CompletableFuture.runAsync(() -> {
                try {
                    tx.inTransaction(c -> {
                        holder.acquire("in-transaction");
                        locked.countDown();
                        assertThat(reaped.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
                        return null;
                    });
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, THREADS);
            assertThat(locked.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
            try {
                int deleted = CompletableFuture.supplyAsync(leases::reapExpired, THREADS).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
                assertThat(deleted).as("expired leases reaped while two rows were locked").isEqualTo(5);
                for (String name : List.of("taken-over0", "in-transaction")) {
                    assertThat(other.tryAcquire(name, LockOptions.defaults().withScope(LockScope.LEASE).withWait(Duration.ZERO)))
                            .as("'%s' after the reaper ran", name).isEmpty();
                }
                assertThat(takenOver.isValid()).isTrue();
            } finally {
                reaped.countDown();
            }
            inTransaction.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            takenOver.release();
            for (String name : List.of("taken-over0", "in-transaction")) {
                assertThat(other.tryAcquire(name, LockOptions.defaults().withScope(LockScope.LEASE).withWait(PATIENCE)))
                        .as("'%s' after its holder released it", name).hasValueSatisfying(LockHandle::release);
            }
        }
    }

    private static String newTable(TestDatabase db) {
        String table = "reap_" + TABLES.incrementAndGet();
        db.withLockTable(table);
        return table;
    }

    private static JdbcLockProvider provider(TestDatabase db, Strategy strategy, String table, int batch) {
        return JdbcLockProvider.builder(db.dataSource()).strategy(strategy).table(table).reaperPeriod(Duration.ZERO)
                .reaperBatchSize(batch).build();
    }

    /** Grants {@code count} names with a lease of 1 ms, and waits until their leases ran out. */
    private static void expire(JdbcLockProvider provider, String prefix, int count) {
        for (int i = 0; i < count; i++) {
            assertThat(provider.tryAcquire(request(prefix + i, "dead", Duration.ofMillis(1))).isGranted())
                    .as("'%s%d' granted", prefix, i).isTrue();
        }
        Awaitility.await("leases of 1 ms ran out").atMost(PATIENCE).pollInterval(Duration.ofMillis(20))
                .until(() -> provider.inspect(prefix + (count - 1)).isEmpty());
    }

    private static LockRequest request(String name, String owner, Duration lease) {
        return new LockRequest(name, new LockOwner("test-host", owner, "t1"), lease, Duration.ZERO, false, GrantListener.NONE);
    }

    private static boolean threadAlive(String name) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.isAlive() && t.getName().equals(name));
    }

    private static long rows(TestDatabase db, String table) {
        try (Connection c = db.dataSource().getConnection();
                ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
