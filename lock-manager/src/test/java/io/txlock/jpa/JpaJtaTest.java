package io.txlock.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import com.arjuna.ats.internal.jta.transaction.arjunacore.TransactionSynchronizationRegistryImple;
import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import io.agroal.narayana.NarayanaTransactionIntegration;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.entity.MethodLock;
import io.txlock.jta.JtaTransactionSupport;
import io.txlock.testkit.TestDatabase;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * TRANSACTION scope with the JPA provider in JTA transactions, as in a Jakarta EE container: Narayana standalone,
 * a JTA persistence unit over Agroal's enlisting pool, and the transaction's own EntityManager (created and
 * joined on first use, closed after completion, as a container-managed one is). LEASE locks and committed reads
 * use a RESOURCE_LOCAL unit over a pool of their own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JpaJtaTest {

    private static final TransactionManager TM = com.arjuna.ats.jta.TransactionManager.transactionManager();
    private static final TransactionSynchronizationRegistry TSR = new TransactionSynchronizationRegistryImple();

    /** One namespace, its JTA pool and unit, and the provider's own RESOURCE_LOCAL unit. */
    private record Database(TestDatabase db, AgroalDataSource jtaPool, EntityManagerFactory jta, EntityManagerFactory own) {

        /** @return the current transaction's entity manager, as a container-managed one */
        EntityManager transactional() {
            if (TSR.getTransactionKey() == null) {
                return null;
            }
            EntityManager em = (EntityManager) TSR.getResource(this);
            if (em == null) {
                EntityManager created = jta.createEntityManager();
                created.joinTransaction();
                TSR.putResource(this, created);
                TSR.registerInterposedSynchronization(new Synchronization() {
                    @Override
                    public void beforeCompletion() {
                    }

                    @Override
                    public void afterCompletion(int status) {
                        created.close();
                    }
                });
                em = created;
            }
            return em;
        }

        @Override
        public String toString() {
            return db.toString();
        }
    }

    private final List<Database> databases = new ArrayList<>();

    @BeforeAll
    void startDatabases() throws SQLException {
        for (TestDatabase.Kind kind : TestDatabase.Kind.values()) {
            TestDatabase db = TestDatabase.create(kind).withLockTable("method_lock");
            db.execute("CREATE TABLE orders (order_no VARCHAR(64) NOT NULL PRIMARY KEY, lock_token BIGINT NOT NULL)");
            AgroalDataSource pool = AgroalDataSource.from(new AgroalDataSourceConfigurationSupplier()
                    .connectionPoolConfiguration(cp -> cp.maxSize(16)
                            .transactionIntegration(new NarayanaTransactionIntegration(TM, TSR))
                            .connectionFactoryConfiguration(cf -> cf.jdbcUrl(db.url())
                                    .principal(new NamePrincipal(db.user())).credential(new SimplePassword("")))));
            databases.add(new Database(db, pool, TestPersistenceUnit.jta(pool, MethodLock.class, PlacedOrder.class),
                    TestPersistenceUnit.create(db.dataSource(), Map.of(), MethodLock.class)));
        }
    }

    @AfterAll
    void dropDatabases() {
        for (Database d : databases) {
            d.jta().close();
            d.own().close();
            d.jtaPool().close();
            d.db().close();
        }
    }

    @AfterEach
    void noTransactionLeftBehind() throws Exception {
        if (TM.getStatus() != Status.STATUS_NO_TRANSACTION) {
            TM.rollback();
        }
    }

    Stream<Arguments> combinations() {
        return databases.stream().flatMap(db -> Stream.of(Strategy.values()).filter(s -> s != Strategy.ADVISORY)
                .map(s -> Arguments.of(db, s)));
    }

    private static LockManager node(Database d, Strategy strategy) {
        return LockManager.builder(JpaLockProvider.builder(d.own()).entityManager(d::transactional).strategy(strategy)
                .reaperPeriod(Duration.ZERO).build()).transactions(JtaTransactionSupport.of(TSR)).build();
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void commitFreesTheLockAndKeepsTheEntitiesWrittenUnderIt(Database d, Strategy strategy) throws Exception {
        try (LockManager a = node(d, strategy); LockManager b = node(d, strategy)) {
            String order = "jta-commit-" + strategy;
            TM.begin();
            LockHandle lock = a.acquire("order:" + order);
            assertThat(lock.scope()).isEqualTo(LockScope.TRANSACTION);
            d.transactional().persist(new PlacedOrder(order, lock.fencingToken()));
            assertThat(b.tryAcquire("order:" + order, LockOptions.defaults().withScope(LockScope.LEASE).withWait(Duration.ZERO)))
                    .isEmpty();
            TM.commit();

            assertThat(orderToken(d, order)).contains(lock.fencingToken());
            try (LockHandle next = b.acquire("order:" + order, LockOptions.defaults().withScope(LockScope.LEASE)
                    .withWait(Duration.ofSeconds(5)))) {
                assertThat(next.fencingToken()).isGreaterThan(lock.fencingToken());
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void rollbackFreesTheLockAndItsTokenIsNeverHandedOutAgain(Database d, Strategy strategy) throws Exception {
        try (LockManager a = node(d, strategy); LockManager b = node(d, strategy)) {
            String order = "jta-rollback-" + strategy;
            TM.begin();
            long token = a.acquire("order:" + order).fencingToken();
            d.transactional().persist(new PlacedOrder(order, token));
            d.transactional().flush();
            TM.rollback();

            assertThat(orderToken(d, order)).isEmpty();
            assertThat(a.inspect("order:" + order)).isEmpty();
            try (LockHandle next = b.acquire("order:" + order, LockOptions.defaults().withScope(LockScope.LEASE)
                    .withWait(Duration.ofSeconds(5)))) {
                assertThat(next.fencingToken()).isGreaterThan(token);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void aLockNotGrantedInTimeLeavesTheTransactionActiveAndItsWorkCommits(Database d, Strategy strategy) throws Exception {
        try (LockManager a = node(d, strategy); LockManager b = node(d, strategy)) {
            String order = "jta-usable-" + strategy;
            CountDownLatch locked = new CountDownLatch(1);
            CountDownLatch mayCommit = new CountDownLatch(1);
            CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
                try {
                    TM.begin();
                    a.acquire("order:" + order);
                    locked.countDown();
                    assertThat(mayCommit.await(30, TimeUnit.SECONDS)).isTrue();
                    TM.commit();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(locked.await(30, TimeUnit.SECONDS)).isTrue();

            TM.begin();
            d.transactional().persist(new PlacedOrder(order + "-before", 1));
            d.transactional().flush();
            assertThat(b.tryAcquire("order:" + order, Duration.ofMillis(300))).isEmpty();
            assertThat(b.tryAcquire("order:" + order)).isEmpty();
            assertThat(TM.getStatus()).isEqualTo(Status.STATUS_ACTIVE);
            d.transactional().persist(new PlacedOrder(order + "-after", 2));
            mayCommit.countDown();
            holder.get(30, TimeUnit.SECONDS);
            assertThat(b.tryAcquire("order:" + order, Duration.ofSeconds(5))).isPresent();
            TM.commit();

            assertThat(orderToken(d, order + "-before")).contains(1L);
            assertThat(orderToken(d, order + "-after")).contains(2L);
        }
    }

    private static Optional<Long> orderToken(Database d, String orderNo) {
        EntityManager em = d.own().createEntityManager();
        try {
            List<?> rows = em.createNativeQuery("SELECT lock_token FROM orders WHERE order_no = ?").setParameter(1, orderNo)
                    .getResultList();
            return rows.stream().findFirst().map(n -> ((Number) n).longValue());
        } finally {
            em.close();
        }
    }
}
