package io.txlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txlock.LockTimeoutException;
import io.txlock.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Idempotency claims inside local JDBC transactions, on every server: a committed claim refuses duplicates, a
 * rolled-back one frees its key, concurrent duplicates wait for the first one's outcome, and many concurrent
 * duplicates on MariaDB under REPEATABLE READ store each order once without a deadlock.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JdbcClaimsTest {

    private final List<TestDatabase> databases = new ArrayList<>();
    private static final ExecutorService SUBMITTERS = Executors.newCachedThreadPool();

    @BeforeAll
    void startDatabases() {
        for (TestDatabase.Kind kind : TestDatabase.Kind.values()) {
            TestDatabase db = TestDatabase.create(kind).withLockTable("method_lock");
            // no unique key on order_no: an order stored twice shows as two rows
            db.execute("CREATE TABLE orders (id INTEGER NOT NULL PRIMARY KEY, order_no VARCHAR(64) NOT NULL)");
            databases.add(db);
        }
    }

    @AfterAll
    void dropDatabases() {
        SUBMITTERS.shutdownNow();
        databases.forEach(TestDatabase::close);
    }

    Stream<TestDatabase> databases() {
        return databases.stream();
    }

    private static final AtomicInteger ORDER_IDS = new AtomicInteger();

    /** One submission of an order: claim its key, store it if the claim is new; fail after storing if asked. */
    private static boolean submit(JdbcTransactions tx, JdbcClaims claims, String orderNo, Runnable beforeCommit)
            throws Exception {
        return tx.inTransaction(c -> {
            if (!claims.claim("order-submitted:" + orderNo)) {
                return false;
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO orders (id, order_no) VALUES (?, ?)")) {
                ps.setInt(1, ORDER_IDS.incrementAndGet());
                ps.setString(2, orderNo);
                ps.executeUpdate();
            }
            beforeCommit.run();
            return true;
        });
    }

    private static Runnable nothing() {
        return () -> { };
    }

    @ParameterizedTest(name = "{0}", autoCloseArguments = false)
    @MethodSource("databases")
    void aCommittedClaimRefusesEveryLaterDuplicate(TestDatabase db) throws Exception {
        JdbcTransactions tx = JdbcTransactions.over(db.dataSource());
        JdbcClaims claims = JdbcClaims.builder(tx).build();
        assertThat(submit(tx, claims, "A-1", nothing())).isTrue();
        assertThat(submit(tx, claims, "A-1", nothing())).isFalse();
        assertThat(submit(tx, JdbcClaims.builder(tx).build(), "A-1", nothing())).isFalse();
        assertThat(submit(tx, claims, "A-2", nothing())).isTrue();
        assertThat(stored(db, "A-1")).isEqualTo(1);
        assertThat(stored(db, "A-2")).isEqualTo(1);
        assertThat((boolean) tx.inTransaction(c -> claims.claim("order-submitted:A-3") && !claims.claim("order-submitted:A-3")))
                .as("a second claim of a key in the same transaction is refused too").isTrue();
    }

    @ParameterizedTest(name = "{0}", autoCloseArguments = false)
    @MethodSource("databases")
    void aRolledBackClaimFreesItsKey(TestDatabase db) throws Exception {
        JdbcTransactions tx = JdbcTransactions.over(db.dataSource());
        JdbcClaims claims = JdbcClaims.builder(tx).build();
        assertThatThrownBy(() -> submit(tx, claims, "B-1", () -> {
            throw new IllegalStateException("payment declined");
        })).hasMessage("payment declined");
        assertThat(stored(db, "B-1")).isZero();
        assertThat(submit(tx, claims, "B-1", nothing())).isTrue();
        assertThat(stored(db, "B-1")).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}", autoCloseArguments = false)
    @MethodSource("databases")
    void aDuplicateWaitsForTheFirstClaimAndIsRefusedWhenItCommits(TestDatabase db) throws Exception {
        JdbcTransactions tx = JdbcTransactions.over(db.dataSource());
        JdbcClaims claims = JdbcClaims.builder(tx).build();
        CountDownLatch claimed = new CountDownLatch(1);
        CountDownLatch mayCommit = new CountDownLatch(1);
        CompletableFuture<Boolean> first = async(() -> submit(tx, claims, "C-1", () -> {
            claimed.countDown();
            await(mayCommit);
        }));
        await(claimed);
        CompletableFuture<Boolean> duplicate = async(() -> submit(tx, claims, "C-1", nothing()));
        // claims wait in the database, except on MariaDB, where they try again without waiting, in their transaction
        Awaitility.await("the duplicate claim waits").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                .until(() -> db.kind() == TestDatabase.Kind.MARIADB ? db.innoDbTransactions() >= 2 : db.lockWaiters() >= 1);
        assertThat(duplicate).as("waits for the first submission's transaction").isNotDone();
        mayCommit.countDown();
        assertThat(first.get(30, TimeUnit.SECONDS)).isTrue();
        assertThat(duplicate.get(30, TimeUnit.SECONDS)).isFalse();
        assertThat(stored(db, "C-1")).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}", autoCloseArguments = false)
    @MethodSource("databases")
    void whenTheFirstClaimRollsBackExactlyOneWaitingDuplicateWinsWithoutDeadlock(TestDatabase db) throws Exception {
        JdbcTransactions tx = JdbcTransactions.over(db.dataSource());
        JdbcClaims claims = JdbcClaims.builder(tx).build();
        CountDownLatch claimed = new CountDownLatch(1);
        CountDownLatch mayFail = new CountDownLatch(1);
        CompletableFuture<Boolean> first = async(() -> submit(tx, claims, "D-1", () -> {
            claimed.countDown();
            await(mayFail);
            throw new IllegalStateException("payment declined");
        }));
        await(claimed);
        List<CompletableFuture<Boolean>> duplicates = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            duplicates.add(async(() -> submit(tx, claims, "D-1", nothing())));
        }
        Awaitility.await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
                .until(() -> duplicates.stream().noneMatch(CompletableFuture::isDone));
        mayFail.countDown();
        assertThat(first).failsWithin(Duration.ofSeconds(30));
        List<Boolean> outcomes = new ArrayList<>();
        for (CompletableFuture<Boolean> d : duplicates) {
            outcomes.add(d.get(30, TimeUnit.SECONDS));
        }
        assertThat(outcomes).containsExactlyInAnyOrder(true, false, false);
        assertThat(stored(db, "D-1")).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}", autoCloseArguments = false)
    @MethodSource("databases")
    void aClaimThatCannotWaitLongEnoughTimesOutAndLeavesTheTransactionUsable(TestDatabase db) throws Exception {
        JdbcTransactions tx = JdbcTransactions.over(db.dataSource());
        JdbcClaims claims = JdbcClaims.builder(tx).build();
        CountDownLatch claimed = new CountDownLatch(1);
        CountDownLatch mayCommit = new CountDownLatch(1);
        CompletableFuture<Boolean> first = async(() -> submit(tx, claims, "E-1", () -> {
            claimed.countDown();
            await(mayCommit);
        }));
        await(claimed);
        try {
            tx.inTransaction(c -> {
                long start = System.nanoTime();
                assertThatThrownBy(() -> claims.claim("order-submitted:E-1", Duration.ofMillis(500)))
                        .isInstanceOf(LockTimeoutException.class);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(450), Duration.ofMillis(3_500));
                assertThat(claims.claim("order-submitted:E-2")).isTrue();
                return null;
            });
        } finally {
            mayCommit.countDown();
        }
        assertThat(first.get(30, TimeUnit.SECONDS)).isTrue();
        assertThat(submit(tx, claims, "E-2", nothing())).as("E-2 was claimed and committed above").isFalse();
    }

    @ParameterizedTest(name = "{0}", autoCloseArguments = false)
    @MethodSource("databases")
    void claimingOutsideATransactionIsAClearError(TestDatabase db) {
        JdbcClaims claims = JdbcClaims.builder(db.dataSource()).build();
        assertThatThrownBy(() -> claims.claim("order-submitted:F-1"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("needs the caller's transaction");
    }

    @ParameterizedTest(name = "{0}", autoCloseArguments = false)
    @MethodSource("databases")
    void claimsExpireAfterTheirRetentionAndTheReaperDeletesThem(TestDatabase db) throws Exception {
        db.withLockTable("short_claims");
        JdbcTransactions tx = JdbcTransactions.over(db.dataSource());
        JdbcClaims claims = JdbcClaims.builder(tx).table("short_claims").retention(Duration.ofSeconds(1)).build();
        JdbcClaims kept = JdbcClaims.builder(tx).table("short_claims").build();
        assertThat((boolean) tx.inTransaction(c -> claims.claim("G-1") && kept.claim("G-2"))).isTrue();
        assertThat(claims.reapExpired()).isZero();
        Awaitility.await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                .until(() -> claims.reapExpired() == 1);
        assertThat((boolean) tx.inTransaction(c -> claims.claim("G-1"))).as("the key is free again after its retention").isTrue();
        assertThat((boolean) tx.inTransaction(c -> kept.claim("G-2"))).isFalse();
    }

    @Test
    void badArgumentsSayWhatToFix() {
        JdbcClaims claims = JdbcClaims.builder(databases.get(0).dataSource()).build();
        assertThatThrownBy(() -> claims.claim(" ")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blank");
        assertThatThrownBy(() -> claims.claim("k", Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("wait must be zero or positive");
        assertThatThrownBy(() -> JdbcClaims.builder(databases.get(0).dataSource()).retention(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retention must be at least 1 second");
        assertThatThrownBy(() -> JdbcClaims.builder(databases.get(0).dataSource()).table("a;b"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("plain SQL identifier");
    }

    /**
     * The seeds' case at scale: 24 clients submit 60 orders 4 times each, in random order, under MariaDB's
     * REPEATABLE READ; a quarter of the winning submissions fail after storing (their payment is declined) and roll
     * back. Every order whose submission committed is stored exactly once, every refused duplicate saw a committed
     * order, and no submission failed for any other reason: no deadlock, no lock wait timeout.
     */
    @Test
    void concurrentDuplicatesOnMariaDbRepeatableReadStoreEachOrderOnceWithoutDeadlock() throws Exception {
        TestDatabase db = databases.stream().filter(d -> d.kind() == TestDatabase.Kind.MARIADB).findFirst().orElseThrow();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.url());
        config.setUsername(db.user());
        config.setMaximumPoolSize(24);
        config.setTransactionIsolation("TRANSACTION_REPEATABLE_READ");
        try (HikariDataSource pool = new HikariDataSource(config)) {
            try (Connection c = pool.getConnection(); ResultSet rs = c.createStatement().executeQuery("SELECT @@tx_isolation")) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo("REPEATABLE-READ");
            }
            JdbcTransactions tx = JdbcTransactions.over(pool);
            JdbcClaims claims = JdbcClaims.builder(tx).build();
            List<String> submissions = new ArrayList<>();
            for (int order = 0; order < 60; order++) {
                for (int copy = 0; copy < 4; copy++) {
                    submissions.add("S-" + order);
                }
            }
            Collections.shuffle(submissions);
            Map<String, AtomicInteger> committed = new ConcurrentHashMap<>();
            Map<String, AtomicInteger> refused = new ConcurrentHashMap<>();
            ExecutorService clients = Executors.newFixedThreadPool(24);
            try {
                List<Future<?>> results = new ArrayList<>();
                for (String orderNo : submissions) {
                    results.add(clients.submit(() -> {
                        boolean declined = ThreadLocalRandom.current().nextInt(4) == 0;
                        try {
                            boolean stored = submit(tx, claims, orderNo, () -> {
                                if (declined) {
                                    throw new PaymentDeclined();
                                }
                            });
                            (stored ? committed : refused).computeIfAbsent(orderNo, k -> new AtomicInteger()).incrementAndGet();
                        } catch (PaymentDeclined expected) {
                            // rolled back: the key is free for a later duplicate
                        }
                        return null;
                    }));
                }
                for (Future<?> r : results) {
                    r.get(120, TimeUnit.SECONDS);
                }
            } finally {
                clients.shutdownNow();
            }
            for (int order = 0; order < 60; order++) {
                String orderNo = "S-" + order;
                int commits = committed.getOrDefault(orderNo, new AtomicInteger()).get();
                assertThat(commits).as("committed submissions of " + orderNo).isLessThanOrEqualTo(1);
                assertThat(stored(db, orderNo)).as("rows of " + orderNo).isEqualTo(commits);
                if (refused.containsKey(orderNo)) {
                    assertThat(commits).as(orderNo + " refused a duplicate, so it was stored").isEqualTo(1);
                }
            }
            assertThat(committed).hasSizeGreaterThan(40);
        }
    }

    private static final class PaymentDeclined extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PaymentDeclined() {
            super("payment declined", null, false, false);
        }
    }

    private static int stored(TestDatabase db, String orderNo) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM orders WHERE order_no = ?")) {
            ps.setString(1, orderNo);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    private static <T> CompletableFuture<T> async(Callable<T> work) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return work.call();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, SUBMITTERS);
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
