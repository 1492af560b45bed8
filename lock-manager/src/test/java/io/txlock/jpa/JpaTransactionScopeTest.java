package io.txlock.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.entity.MethodLock;
import io.txlock.testkit.TestDatabase;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
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
 * TRANSACTION scope with the JPA provider on resource-local transactions: the lock's statements run through the
 * caller's own EntityManager, and the lock ends with its transaction, on commit and on rollback, together with the
 * entities written under it, on every server and strategy.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JpaTransactionScopeTest {

    /** One namespace with the lock table and the orders table, and one factory managing both entities. */
    private record Database(TestDatabase db, EntityManagerFactory factory) {
        @Override
        public String toString() {
            return db.toString();
        }
    }

    private final List<Database> databases = new ArrayList<>();

    @BeforeAll
    void startDatabases() {
        for (TestDatabase.Kind kind : TestDatabase.Kind.values()) {
            TestDatabase db = TestDatabase.create(kind).withLockTable("method_lock");
            db.execute("CREATE TABLE orders (order_no VARCHAR(64) NOT NULL PRIMARY KEY, lock_token BIGINT NOT NULL)");
            databases.add(new Database(db, TestPersistenceUnit.create(db.dataSource(), Map.of(), MethodLock.class, PlacedOrder.class)));
        }
    }

    @AfterAll
    void dropDatabases() {
        for (Database d : databases) {
            d.factory().close();
            d.db().close();
        }
    }

    Stream<Arguments> combinations() {
        return databases.stream().flatMap(db -> Stream.of(Strategy.values()).filter(s -> s != Strategy.ADVISORY)
                .map(s -> Arguments.of(db, s)));
    }

    /** One application node: its own transactions and manager over the shared database. */
    private record Node(JpaTransactions tx, LockManager locks) implements AutoCloseable {
        static Node on(Database db, Strategy strategy) {
            JpaTransactions tx = JpaTransactions.over(db.factory());
            return new Node(tx, LockManager.builder(JpaLockProvider.builder(tx).strategy(strategy).build()).transactions(tx).build());
        }

        @Override
        public void close() {
            locks.close();
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void commitFreesTheLockAndKeepsTheEntitiesWrittenUnderIt(Database db, Strategy strategy) throws Exception {
        try (Node a = Node.on(db, strategy); Node b = Node.on(db, strategy)) {
            String order = "commit-" + strategy;
            long token = a.tx().inTransaction(em -> {
                LockHandle lock = a.locks().acquire("order:" + order);
                assertThat(lock.scope()).isEqualTo(LockScope.TRANSACTION);
                assertThat(b.locks().tryAcquire("order:" + order, LockOptions.defaults().withScope(LockScope.LEASE)
                        .withWait(Duration.ZERO))).isEmpty();
                em.persist(new PlacedOrder(order, lock.fencingToken()));
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
    void rollbackFreesTheLockAndItsTokenIsNeverHandedOutAgain(Database db, Strategy strategy) throws Exception {
        try (Node a = Node.on(db, strategy); Node b = Node.on(db, strategy)) {
            String order = "rollback-" + strategy;
            long[] token = new long[1];
            assertThatThrownBy(() -> a.tx().inTransaction(em -> {
                LockHandle lock = a.locks().acquire("order:" + order);
                token[0] = lock.fencingToken();
                em.persist(new PlacedOrder(order, lock.fencingToken()));
                em.flush();
                throw new IllegalStateException("payment declined");
            })).hasMessage("payment declined");
            assertThat(orderToken(db, order)).isEmpty();
            long next = b.tx().inTransaction(em -> b.locks().acquire("order:" + order,
                    LockOptions.defaults().withWait(Duration.ofSeconds(5))).fencingToken());
            assertThat(next).isGreaterThan(token[0]);
            assertThat(a.locks().inspect("order:" + order)).isEmpty();
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void aSecondTransactionWaitsForTheFirstsCommitAndSeesItsEntities(Database db, Strategy strategy) throws Exception {
        try (Node a = Node.on(db, strategy); Node b = Node.on(db, strategy)) {
            String order = "wait-" + strategy;
            CountDownLatch locked = new CountDownLatch(1);
            CountDownLatch mayCommit = new CountDownLatch(1);
            CompletableFuture<Long> first = CompletableFuture.supplyAsync(() -> call(() -> a.tx().inTransaction(em -> {
                LockHandle lock = a.locks().acquire("order:" + order);
                em.persist(new PlacedOrder(order, lock.fencingToken()));
                em.flush();
                locked.countDown();
                assertThat(mayCommit.await(30, TimeUnit.SECONDS)).isTrue();
                return lock.fencingToken();
            })));
            assertThat(locked.await(30, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Optional<Long>> second = CompletableFuture.supplyAsync(() -> call(() -> b.tx().inTransaction(em -> {
                b.locks().acquire("order:" + order, LockOptions.defaults().withWait(Duration.ofSeconds(30)));
                return Optional.ofNullable(em.find(PlacedOrder.class, order)).map(PlacedOrder::lockToken);
            })));
            Awaitility.await("the second transaction waiting in the database for the first's row lock")
                    .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(() -> {
                        assertThat(second).isNotDone();
                        return db.db().lockWaiters() >= 1;
                    });
            mayCommit.countDown();
            long firstToken = first.get(30, TimeUnit.SECONDS);
            assertThat(second.get(30, TimeUnit.SECONDS)).contains(firstToken);
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void aLockNotGrantedInTimeLeavesTheCallersTransactionUsable(Database db, Strategy strategy) throws Exception {
        try (Node a = Node.on(db, strategy); Node b = Node.on(db, strategy)) {
            String order = "usable-" + strategy;
            a.tx().inTransaction(holder -> {
                a.locks().acquire("order:" + order);
                b.tx().inTransaction(em -> {
                    em.persist(new PlacedOrder(order + "-before", 1));
                    em.flush();
                    assertThat(b.locks().tryAcquire("order:" + order, Duration.ofMillis(300))).isEmpty();
                    assertThat(b.locks().tryAcquire("order:" + order)).isEmpty();
                    assertThat(em.getTransaction().getRollbackOnly()).isFalse();
                    em.persist(new PlacedOrder(order + "-after", 2));
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
    void aTransactionThatFindsTheLockHeldDoesNotHoldUpItsHolder(Database db, Strategy strategy) throws Exception {
        try (Node a = Node.on(db, strategy); Node b = Node.on(db, strategy)) {
            String name = "holder-" + strategy;
            LockHandle held = a.locks().acquire(name, LockOptions.defaults().withScope(LockScope.LEASE));
            b.tx().inTransaction(em -> {
                assertThat(b.locks().tryAcquire(name, Duration.ofMillis(300))).isEmpty();
                CompletableFuture<Void> release = CompletableFuture.runAsync(held::release);
                release.get(10, TimeUnit.SECONDS);
                assertThat(b.locks().tryAcquire(name, Duration.ofSeconds(5))).isPresent();
                return null;
            });
        }
    }

    private static Optional<Long> orderToken(Database db, String orderNo) {
        EntityManager em = db.factory().createEntityManager();
        try {
            return Optional.ofNullable(em.find(PlacedOrder.class, orderNo)).map(PlacedOrder::lockToken);
        } finally {
            em.close();
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
