package io.txlock.jta;

import static io.txlock.jta.NarayanaJta.TM;
import static io.txlock.jta.NarayanaJta.inTransaction;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agroal.api.AgroalDataSource;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.jdbc.JdbcClaims;
import io.txlock.jdbc.JdbcLockProvider;
import io.txlock.testkit.TestDatabase;
import jakarta.transaction.Status;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
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
 * Locks in the caller's JTA transaction, without a container: Narayana as transaction manager, Agroal pools that
 * enlist their connections as a container's JTA datasource does, and the registry found through JNDI as in a
 * container. On every server and strategy the lock's SQL joins the caller's transaction and the lock ends with it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JtaTransactionScopeTest {

    private final List<TestDatabase> databases = new ArrayList<>();
    private final Map<TestDatabase, AgroalDataSource> enlisting = new HashMap<>();
    private final Map<TestDatabase, AgroalDataSource> plain = new HashMap<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeAll
    void start() {
        NarayanaJta.bindRegistryInJndi();
        for (TestDatabase.Kind kind : TestDatabase.Kind.values()) {
            TestDatabase db = TestDatabase.create(kind).withLockTable("method_lock");
            db.execute("CREATE TABLE orders (order_no VARCHAR(64) NOT NULL PRIMARY KEY, lock_token BIGINT NOT NULL)");
            databases.add(db);
            enlisting.put(db, NarayanaJta.pool(db, true));
            plain.put(db, NarayanaJta.pool(db, false));
        }
    }

    @AfterAll
    void stop() {
        threads.shutdownNow();
        enlisting.values().forEach(AgroalDataSource::close);
        plain.values().forEach(AgroalDataSource::close);
        databases.forEach(TestDatabase::close);
        NarayanaJta.unbindJndi();
    }

    Stream<Arguments> combinations() {
        return databases.stream().flatMap(db -> db.dialect().strategies().stream().map(s -> Arguments.of(db, s)));
    }

    /** A manager as an application configures it: the JTA datasource, a non-JTA one for LEASE locks, discovery. */
    private LockManager manager(TestDatabase db, Strategy strategy) {
        return LockManager.builder(JdbcLockProvider.builder(enlisting.get(db)).leaseDataSource(plain.get(db))
                .strategy(strategy).reaperPeriod(Duration.ZERO).build()).build();
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void commitFreesTheLockAndKeepsTheRowsWrittenUnderIt(TestDatabase db, Strategy strategy) throws Exception {
        try (LockManager a = manager(db, strategy); LockManager b = manager(db, strategy)) {
            String order = "commit-" + strategy;
            long token = inTransaction(() -> {
                LockHandle lock = a.acquire("order:" + order);
                assertThat(lock.scope()).isEqualTo(LockScope.TRANSACTION);
                assertThat(b.tryAcquire("order:" + order, LockOptions.defaults().withScope(LockScope.LEASE).withWait(Duration.ZERO)))
                        .isEmpty();
                insertOrder(db, order, lock.fencingToken());
                return lock.fencingToken();
            });
            assertThat(orderToken(db, order)).contains(token);
            try (LockHandle next = b.acquire("order:" + order, LockOptions.defaults().withScope(LockScope.LEASE)
                    .withWait(Duration.ofSeconds(5)))) {
                assertThat(next.fencingToken()).isGreaterThan(token);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void rollbackFreesTheLockTogetherWithTheBusinessRows(TestDatabase db, Strategy strategy) throws Exception {
        try (LockManager a = manager(db, strategy); LockManager b = manager(db, strategy)) {
            String order = "rollback-" + strategy;
            assertThatThrownBy(() -> inTransaction(() -> {
                LockHandle lock = a.acquire("order:" + order);
                insertOrder(db, order, lock.fencingToken());
                throw new IllegalStateException("payment declined");
            })).hasMessage("payment declined");
            assertThat(orderToken(db, order)).isEmpty();
            assertThat(a.inspect("order:" + order)).isEmpty();
            assertThat(inTransaction(() -> b.tryAcquire("order:" + order, Duration.ofSeconds(5)).isPresent())).isTrue();
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void aSecondTransactionWaitsForTheFirstsCommitAndSeesItsRows(TestDatabase db, Strategy strategy) throws Exception {
        try (LockManager a = manager(db, strategy); LockManager b = manager(db, strategy)) {
            String order = "wait-" + strategy;
            CountDownLatch locked = new CountDownLatch(1);
            CountDownLatch mayCommit = new CountDownLatch(1);
            CompletableFuture<Long> first = async(() -> inTransaction(() -> {
                LockHandle lock = a.acquire("order:" + order);
                insertOrder(db, order, lock.fencingToken());
                locked.countDown();
                assertThat(mayCommit.await(30, TimeUnit.SECONDS)).isTrue();
                return lock.fencingToken();
            }));
            assertThat(locked.await(30, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Optional<Long>> second = async(() -> inTransaction(() -> {
                b.acquire("order:" + order, LockOptions.defaults().withWait(Duration.ofSeconds(30)));
                return orderTokenInTransaction(db, order);
            }));
            Awaitility.await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> !second.isDone());
            mayCommit.countDown();
            long firstToken = first.get(30, TimeUnit.SECONDS);
            assertThat(second.get(30, TimeUnit.SECONDS)).contains(firstToken);
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void aTransactionThatTimesOutReleasesItsLocks(TestDatabase db, Strategy strategy) throws Exception {
        try (LockManager a = manager(db, strategy); LockManager b = manager(db, strategy)) {
            String name = "timeout-" + strategy;
            CountDownLatch locked = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            CompletableFuture<Integer> holder = async(() -> {
                TM.setTransactionTimeout(1);
                TM.begin();
                try {
                    a.acquire(name);
                    locked.countDown();
                    assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
                    return TM.getStatus();
                } finally {
                    TM.setTransactionTimeout(0);
                    TM.suspend();
                }
            });
            assertThat(locked.await(30, TimeUnit.SECONDS)).isTrue();
            try {
                long start = System.nanoTime();
                boolean granted = inTransaction(() -> b.tryAcquire(name, Duration.ofSeconds(20)).isPresent());
                assertThat(granted).as("granted once the holder's transaction timed out and rolled back").isTrue();
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
            } finally {
                done.countDown();
            }
            // Narayana's reaper may still be rolling it back when the holder looks
            assertThat(holder.get(30, TimeUnit.SECONDS)).isIn(Status.STATUS_ROLLING_BACK, Status.STATUS_ROLLEDBACK,
                    Status.STATUS_NO_TRANSACTION);
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void aLeaseLockInsideAJtaTransactionUsesTheLeaseDataSourceAndOutlivesTheTransaction(TestDatabase db, Strategy strategy)
            throws Exception {
        try (LockManager a = manager(db, strategy); LockManager b = manager(db, strategy)) {
            String name = "lease-" + strategy;
            LockOptions lease = LockOptions.defaults().withScope(LockScope.LEASE).withWait(Duration.ZERO);
            LockHandle held = assertRolledBack(() -> {
                LockHandle h = a.acquire(name, lease);
                throw new RolledBack(h);
            });
            assertThat(held.isValid()).isTrue();
            assertThat(b.tryAcquire(name, lease)).as("still held after the transaction rolled back").isEmpty();
            inTransaction(() -> {
                held.release();
                return null;
            });
            assertThat(b.tryAcquire(name, lease.withWait(Duration.ofSeconds(5)))).hasValueSatisfying(LockHandle::release);
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void aLeaseLockInsideAJtaTransactionWithoutALeaseDataSourceIsAClearError(TestDatabase db, Strategy strategy)
            throws Exception {
        try (LockManager jtaOnly = LockManager.builder(JdbcLockProvider.builder(enlisting.get(db)).strategy(strategy)
                .reaperPeriod(Duration.ZERO).build()).build()) {
            String name = "jta-only-" + strategy;
            inTransaction(() -> {
                assertThatThrownBy(() -> jtaOnly.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE)))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("enlisted in the active transaction")
                        .hasMessageContaining("leaseDataSource")
                        .hasMessageContaining("transactional = false");
                if (strategy == Strategy.SELECT_FOR_UPDATE) {
                    assertThatThrownBy(() -> jtaOnly.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE)))
                            .as("the message says what could not be done, built only then")
                            .hasMessageContaining("cannot lock '" + name + "' in LEASE scope outside the caller's transaction");
                }
                if (strategy == Strategy.ADVISORY && db.kind() == TestDatabase.Kind.MARIADB) {
                    assertThatThrownBy(() -> jtaOnly.acquire(name)).as("AUTO too: a GET_LOCK is held by a session of its own")
                            .isInstanceOf(IllegalStateException.class).hasMessageContaining("ADVISORY locks on MySQL/MariaDB");
                } else {
                    assertThat(jtaOnly.acquire(name).scope()).as("AUTO still works").isEqualTo(LockScope.TRANSACTION);
                }
                return null;
            });
            try (LockHandle outside = jtaOnly.acquire(name, LockOptions.defaults().withWait(Duration.ofSeconds(5)))) {
                assertThat(outside.scope()).as("outside a transaction the JTA datasource serves LEASE locks").isEqualTo(LockScope.LEASE);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void transactionScopeOutsideATransactionIsAClearError(TestDatabase db, Strategy strategy) {
        try (LockManager a = manager(db, strategy)) {
            assertThatThrownBy(() -> a.acquire("no-tx", LockOptions.defaults().withScope(LockScope.TRANSACTION)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("needs an active transaction");
        }
    }

    @ParameterizedTest(name = "{0}", autoCloseArguments = false)
    @MethodSource("databases")
    void claimsJoinTheJtaTransaction(TestDatabase db) throws Exception {
        JdbcClaims claims = JdbcClaims.builder(enlisting.get(db)).build();
        assertThatThrownBy(() -> inTransaction(() -> {
            assertThat(claims.claim("order-submitted:J-1")).isTrue();
            insertOrder(db, "J-1", 1);
            throw new IllegalStateException("payment declined");
        })).hasMessage("payment declined");
        assertThat(orderToken(db, "J-1")).isEmpty();
        assertThat(inTransaction(() -> {
            boolean claimed = claims.claim("order-submitted:J-1");
            insertOrder(db, "J-1", 2);
            return claimed;
        })).isTrue();
        assertThat(inTransaction(() -> claims.claim("order-submitted:J-1"))).isFalse();
        assertThat(orderToken(db, "J-1")).contains(2L);
        assertThatThrownBy(() -> claims.claim("order-submitted:J-2")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("needs the caller's transaction");
    }

    Stream<TestDatabase> databases() {
        return databases.stream();
    }

    /** Thrown to roll back while handing a value out. */
    private static final class RolledBack extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient LockHandle handle;

        RolledBack(LockHandle handle) {
            super("roll back", null, false, false);
            this.handle = handle;
        }
    }

    private static LockHandle assertRolledBack(Callable<Void> work) throws Exception {
        try {
            inTransaction(work);
        } catch (RolledBack e) {
            return e.handle;
        }
        throw new AssertionError("expected a rollback");
    }

    private void insertOrder(TestDatabase db, String orderNo, long token) throws SQLException {
        try (Connection c = enlisting.get(db).getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO orders (order_no, lock_token) VALUES (?, ?)")) {
            ps.setString(1, orderNo);
            ps.setLong(2, token);
            ps.executeUpdate();
        }
    }

    private Optional<Long> orderTokenInTransaction(TestDatabase db, String orderNo) throws SQLException {
        try (Connection c = enlisting.get(db).getConnection()) {
            return orderToken(c, orderNo);
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

    private <T> CompletableFuture<T> async(Callable<T> work) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return work.call();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, threads);
    }
}
