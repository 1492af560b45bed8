package io.txlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * TRANSACTION scope with the JDBC provider on local transactions: the lock's SQL runs on the caller's own
 * connection, and the lock ends with the transaction, on commit and on rollback, on every server and strategy.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JdbcTransactionScopeTest {

    /** One thread per task: the common pool of a small machine has a single thread, and these tasks block. */
    private static final ExecutorService THREADS = Executors.newCachedThreadPool();

    private final List<TestDatabase> databases = new ArrayList<>();

    @BeforeAll
    void startDatabases() {
        for (TestDatabase.Kind kind : TestDatabase.Kind.values()) {
            TestDatabase db = TestDatabase.create(kind).withLockTable("method_lock");
            db.execute("CREATE TABLE orders (order_no VARCHAR(64) NOT NULL PRIMARY KEY, lock_token BIGINT NOT NULL)");
            databases.add(db);
        }
    }

    @AfterAll
    void dropDatabases() {
        THREADS.shutdownNow();
        databases.forEach(TestDatabase::close);
    }

    Stream<Arguments> combinations() {
        return databases.stream().flatMap(db -> db.dialect().strategies().stream().map(s -> Arguments.of(db, s)));
    }

    /** One application node: its own transactions and manager over the shared database. */
    private record Node(JdbcTransactions tx, LockManager locks) implements AutoCloseable {
        static Node on(TestDatabase db, Strategy strategy) {
            JdbcTransactions tx = JdbcTransactions.over(db.dataSource());
            return new Node(tx, LockManager.builder(JdbcLockProvider.builder(tx).strategy(strategy).reaperPeriod(Duration.ZERO)
                    .build()).transactions(tx).build());
        }

        @Override
        public void close() {
            locks.close();
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void commitFreesTheLockAndKeepsTheRowsWrittenUnderIt(TestDatabase db, Strategy strategy) throws Exception {
        try (Node a = Node.on(db, strategy); Node b = Node.on(db, strategy)) {
            String order = "commit-" + strategy;
            long token = a.tx().inTransaction(c -> {
                LockHandle lock = a.locks().acquire("order:" + order);
                assertThat(lock.scope()).isEqualTo(LockScope.TRANSACTION);
                assertThat(b.locks().tryAcquire("order:" + order, LockOptions.defaults().withScope(LockScope.LEASE).withWait(Duration.ZERO))).isEmpty();
                insertOrder(c, order, lock.fencingToken());
                return lock.fencingToken();
            });
            assertThat(orderToken(db, order)).contains(token);
            try (LockHandle next = b.locks().acquire("order:" + order, LockOptions.defaults().withScope(LockScope.LEASE)
                    .withWait(Duration.ofSeconds(5)))) {
                assertThat(next.fencingToken()).isGreaterThan(token);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void rollbackFreesTheLockAndItsTokenIsNeverHandedOutAgain(TestDatabase db, Strategy strategy) throws Exception {
        try (Node a = Node.on(db, strategy); Node b = Node.on(db, strategy)) {
            String order = "rollback-" + strategy;
            long[] token = new long[1];
            assertThatThrownBy(() -> a.tx().inTransaction(c -> {
                LockHandle lock = a.locks().acquire("order:" + order);
                token[0] = lock.fencingToken();
                insertOrder(c, order, lock.fencingToken());
                throw new IllegalStateException("payment declined");
            })).hasMessage("payment declined");
            assertThat(orderToken(db, order)).isEmpty();
            long next = b.tx().inTransaction(c -> b.locks().acquire("order:" + order,
                    LockOptions.defaults().withWait(Duration.ofSeconds(5))).fencingToken());
            assertThat(next).isGreaterThan(token[0]);
            assertThat(a.locks().inspect("order:" + order)).isEmpty();
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void aSecondTransactionWaitsForTheFirstsCommitAndSeesItsRows(TestDatabase db, Strategy strategy) throws Exception {
        try (Node a = Node.on(db, strategy); Node b = Node.on(db, strategy)) {
            String order = "wait-" + strategy;
            CountDownLatch locked = new CountDownLatch(1);
            CountDownLatch mayCommit = new CountDownLatch(1);
            CompletableFuture<Long> first = CompletableFuture.supplyAsync(() -> call(() -> a.tx().inTransaction(c -> {
                LockHandle lock = a.locks().acquire("order:" + order);
                insertOrder(c, order, lock.fencingToken());
                locked.countDown();
                assertThat(mayCommit.await(30, TimeUnit.SECONDS)).isTrue();
                return lock.fencingToken();
            })), THREADS);
            assertThat(locked.await(30, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Optional<Long>> second = CompletableFuture.supplyAsync(() -> call(() -> b.tx().inTransaction(c -> {
                b.locks().acquire("order:" + order, LockOptions.defaults().withWait(Duration.ofSeconds(30)));
                return orderToken(c, order);
            })), THREADS);
            awaitLockWaiters(db, 1, List.of(second));
            mayCommit.countDown();
            long firstToken = first.get(30, TimeUnit.SECONDS);
            assertThat(second.get(30, TimeUnit.SECONDS)).contains(firstToken);
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void aLockNotGrantedInTimeLeavesTheCallersTransactionUsable(TestDatabase db, Strategy strategy) throws Exception {
        try (Node a = Node.on(db, strategy); Node b = Node.on(db, strategy)) {
            String order = "usable-" + strategy;
            a.tx().inTransaction(holder -> {
                a.locks().acquire("order:" + order);
                b.tx().inTransaction(c -> {
                    insertOrder(c, order + "-before", 1);
                    assertThat(b.locks().tryAcquire("order:" + order, Duration.ofMillis(300))).isEmpty();
                    insertOrder(c, order + "-after", 2);
                    return null;
                });
                return null;
            });
            assertThat(orderToken(db, order + "-before")).contains(1L);
            assertThat(orderToken(db, order + "-after")).contains(2L);
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void aProviderFirstUsedInsideATransactionDetectsItsDatabaseWithoutCommitting(TestDatabase db, Strategy strategy)
            throws Exception {
        JdbcTransactions tx = JdbcTransactions.over(db.dataSource());
        try (LockManager locks = LockManager.builder(JdbcLockProvider.builder(tx.dataSource()).strategy(strategy)
                .reaperPeriod(Duration.ZERO).build()).transactions(tx).build()) {
            String order = "detect-" + strategy;
            tx.inTransaction(c -> {
                if (heldBySession(db, strategy)) {
                    assertThatThrownBy(() -> locks.acquire("order:" + order))
                            .as("a session lock on the caller's own connection, the only one this provider has")
                            .isInstanceOf(IllegalStateException.class).hasMessageContaining("connection of its own")
                            .hasMessageContaining("JdbcLockProvider.builder(tx)").hasMessageContaining("leaseDataSource");
                    insertOrder(c, order, 1);
                } else {
                    insertOrder(c, order, locks.acquire("order:" + order).fencingToken());
                }
                return null;
            });
            assertThat(orderToken(db, order)).isPresent();
        }
    }

    /** ADVISORY on MySQL/MariaDB: GET_LOCK belongs to a session, held on a connection of the provider's own. */
    private static boolean heldBySession(TestDatabase db, Strategy strategy) {
        return strategy == Strategy.ADVISORY && db.kind() == TestDatabase.Kind.MARIADB;
    }

    /**
     * A provider whose datasource hands out connections that do not join the caller's transaction (auto-commit)
     * would take a lock that ends with its own statement while the caller counts on it until commit: refused. A
     * session lock (ADVISORY on MariaDB) is taken on such a connection of its own anyway, and released by the core
     * once the caller's transaction ended.
     */
    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void aDatasourceWhoseConnectionsMissTheCallersTransactionIsRefused(TestDatabase db, Strategy strategy) throws Exception {
        JdbcTransactions tx = JdbcTransactions.over(db.dataSource());
        try (LockManager outside = LockManager.builder(JdbcLockProvider.builder(db.dataSource()).strategy(strategy)
                .reaperPeriod(Duration.ZERO).build()).transactions(tx).build();
                Node other = Node.on(db, strategy)) {
            String order = "not-joined-" + strategy;
            if (heldBySession(db, strategy)) {
                tx.inTransaction(c -> {
                    insertOrder(c, order, outside.acquire("order:" + order).fencingToken());
                    assertThat(other.locks().tryAcquire("order:" + order, LockOptions.defaults().withScope(LockScope.LEASE)))
                            .as("'order:%s' while the caller's transaction holds it", order).isEmpty();
                    return null;
                });
                assertThat(other.locks().tryAcquire("order:" + order, LockOptions.defaults().withScope(LockScope.LEASE)))
                        .as("'order:%s' after the caller's transaction", order).hasValueSatisfying(LockHandle::release);
                return;
            }
            tx.inTransaction(c -> {
                insertOrder(c, order, 1);
                assertThatThrownBy(() -> outside.acquire("order:" + order))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("auto-commit")
                        .hasMessageContaining("JdbcLockProvider.builder(tx)")
                        .hasMessageContaining("JTA datasource");
                assertThat(other.locks().tryAcquire("order:" + order, LockOptions.defaults().withScope(LockScope.LEASE)))
                        .as("'order:%s' after the refused acquire", order).hasValueSatisfying(LockHandle::release);
                return null;
            });
            assertThat(orderToken(db, order)).as("the caller's transaction after the refusal").contains(1L);
        }
    }

    /**
     * The first use of a name, rolled back while three other nodes wait for it: on MariaDB, had the row been
     * created inside the holder's transaction, the rollback would turn the waiters' locks into gap locks and two
     * of them would deadlock. Every waiter must get the lock in turn, none may be a deadlock victim.
     */
    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void aFirstUseRolledBackWhileOthersWaitDeadlocksNobody(TestDatabase db, Strategy strategy) throws Exception {
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            nodes.add(Node.on(db, strategy));
        }
        try {
            for (int round = 0; round < 5; round++) {
                String name = "first-use-" + strategy + "-" + round;
                CountDownLatch locked = new CountDownLatch(1);
                CountDownLatch mayRollBack = new CountDownLatch(1);
                CompletableFuture<Void> first = CompletableFuture.runAsync(() -> call(() -> {
                    try {
                        return nodes.get(0).tx().inTransaction(c -> {
                            nodes.get(0).locks().acquire(name);
                            locked.countDown();
                            assertThat(mayRollBack.await(30, TimeUnit.SECONDS)).isTrue();
                            throw new IllegalStateException("rolled back on purpose");
                        });
                    } catch (IllegalStateException expected) {
                        return null;
                    }
                }), THREADS);
                assertThat(locked.await(30, TimeUnit.SECONDS)).isTrue();
                List<CompletableFuture<Long>> waiters = new ArrayList<>();
                for (int i = 1; i < 4; i++) {
                    Node node = nodes.get(i);
                    waiters.add(CompletableFuture.supplyAsync(() -> call(() -> node.tx().inTransaction(c ->
                            node.locks().acquire(name, LockOptions.defaults().withWait(Duration.ofSeconds(30))).fencingToken())),
                            THREADS));
                }
                awaitLockWaiters(db, 3, waiters);
                mayRollBack.countDown();
                first.get(60, TimeUnit.SECONDS);
                for (CompletableFuture<Long> waiter : waiters) {
                    assertThat(waiter.get(60, TimeUnit.SECONDS)).as("round %d", round).isPositive();
                }
            }
        } finally {
            nodes.forEach(Node::close);
        }
    }

    /** Waits until {@code count} sessions of {@code db} wait for a lock in the database itself, none of {@code waiters} done. */
    private static void awaitLockWaiters(TestDatabase db, int count, List<? extends CompletableFuture<?>> waiters) {
        Awaitility.await(count + " sessions waiting for a lock in " + db).atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20)).until(() -> {
                    for (CompletableFuture<?> waiter : waiters) {
                        assertThat(waiter).as("a transaction that must wait for a lock held by another one").isNotDone();
                    }
                    return db.lockWaiters() >= count;
                });
        assertThat(waiters).as("transactions waiting in the database for a lock").noneMatch(CompletableFuture::isDone);
    }

    private static void insertOrder(Connection c, String orderNo, long token) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO orders (order_no, lock_token) VALUES (?, ?)")) {
            ps.setString(1, orderNo);
            ps.setLong(2, token);
            ps.executeUpdate();
        }
    }

    private static Optional<Long> orderToken(TestDatabase db, String orderNo) throws SQLException {
        try (Connection c = db.dataSource().getConnection()) {
            return orderToken(c, orderNo);
        }
    }

    private static Optional<Long> orderToken(Connection c, String orderNo) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT lock_token FROM orders WHERE order_no = ?")) {
            ps.setString(1, orderNo);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(rs.getLong(1)) : Optional.empty();
            }
        }
    }

    private static <T> T call(java.util.concurrent.Callable<T> c) {
        try {
            return c.call();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
