package io.txlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockNotHeldException;
import io.txlock.LockScope;
import io.txlock.jdbc.JdbcLockProvider;
import io.txlock.spi.TransactionSupport;
import io.txlock.spring.app.CounterApplication;
import io.txlock.spring.app.LockedJobs;
import io.txlock.spring.app.ReportJobs;
import io.txlock.spring.app.TransactionalLocks;
import io.txlock.spring.app.quickstart.OrderService;
import io.txlock.testkit.TestDatabase;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthEndpoint;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The starter in a real Spring Boot application on a real database, in this JVM: the auto-configured manager,
 * locks that end with {@code @Transactional} transactions (commit, rollback, REQUIRES_NEW), {@code @Locked} through
 * the aspect, the health indicator and the metrics. One fresh schema (database) per class.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class StarterTest {

    private TestDatabase db;
    private ConfigurableApplicationContext app;
    private LockManager locks;
    private final ExecutorService otherThread = Executors.newSingleThreadExecutor();

    /** Leaves JPA, which is on the test class path, out of an application: Boot then uses a JdbcTransactionManager. */
    static final String WITHOUT_JPA = "spring.autoconfigure.exclude="
            + "org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration,"
            + "org.springframework.boot.autoconfigure.data.jpa.JpaRepositoriesAutoConfiguration";

    abstract TestDatabase.Kind kind();

    /** @return properties of this variant, on top of the datasource's */
    String[] moreProperties() {
        return new String[0];
    }

    @BeforeAll
    void startApplication() {
        db = TestDatabase.create(kind());
        db.execute("CREATE TABLE note (text VARCHAR(200) NOT NULL)");
        app = application(db, moreProperties()).run();
        locks = app.getBean(LockManager.class);
    }

    /** @return the test application on {@code db}, where the starter creates the lock table (txlock.create-table) */
    static SpringApplicationBuilder application(TestDatabase db, String... properties) {
        return new SpringApplicationBuilder(CounterApplication.class)
                .web(WebApplicationType.NONE)
                .properties("spring.datasource.url=" + db.url(), "spring.datasource.username=" + db.user(),
                        "spring.datasource.password=", "txlock.create-table=true", "spring.jmx.enabled=true",
                        "management.endpoints.jmx.exposure.include=health", "management.endpoint.health.show-details=always")
                .properties(properties);
    }

    @AfterAll
    void stopApplication() {
        otherThread.shutdownNow();
        if (app != null) {
            app.close();
        }
        if (db != null) {
            db.close();
        }
    }

    /** @return whether a thread outside the caller's transaction gets the lock now, without waiting */
    private boolean freeForAnotherThread(String name) {
        try {
            return otherThread.submit(() -> {
                Optional<LockHandle> lock = locks.tryAcquire(name);
                lock.ifPresent(LockHandle::close);
                return lock.isPresent();
            }).get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private long notes(String text) {
        return app.getBean(JdbcTemplate.class).queryForObject("SELECT COUNT(*) FROM note WHERE text = ?", Long.class, text);
    }

    @Test
    void theManagerIsBuiltOverTheApplicationsDataSourceWithThePropertiesAndSpringTransactions() {
        JdbcLockProvider provider = app.getBean(JdbcLockProvider.class);
        assertThat(provider.table()).isEqualTo("method_lock");
        assertThat(locks.defaults().waitTime()).hasSeconds(20);
        assertThat(app.getBean(TransactionSupport.class)).isInstanceOf(SpringTransactionSupport.class);
    }

    @Test
    void aTransactionalMethodsLockIsHeldUntilCommit() {
        String name = "order:commit";
        LockScope scope = app.getBean(TransactionalLocks.class).lockAndCommit(name,
                () -> assertThat(freeForAnotherThread(name)).as("held inside the transaction").isFalse());
        assertThat(scope).isEqualTo(LockScope.TRANSACTION);
        assertThat(notes(name)).isEqualTo(1);
        assertThat(freeForAnotherThread(name)).as("free after commit").isTrue();
        assertThat(locks.inspect(name)).isEmpty();
    }

    @Test
    void aTransactionalMethodsLockIsReleasedAtRollback() {
        String name = "order:rollback";
        assertThatThrownBy(() -> app.getBean(TransactionalLocks.class).lockAndRollBack(name,
                () -> assertThat(freeForAnotherThread(name)).as("held inside the transaction").isFalse()))
                .hasMessageContaining("on purpose");
        assertThat(notes(name)).as("rolled back").isZero();
        assertThat(freeForAnotherThread(name)).as("free after rollback").isTrue();
    }

    @Test
    void aLockTakenInARequiresNewTransactionEndsWithIt() {
        TransactionalLocks bean = app.getBean(TransactionalLocks.class);
        bean.nested("outer", "inner", bean, () -> {
            assertThat(freeForAnotherThread("inner")).as("the inner transaction committed").isTrue();
            assertThat(freeForAnotherThread("outer")).as("the outer one still runs").isFalse();
        });
        assertThat(freeForAnotherThread("outer")).isTrue();
    }

    @Test
    void aLockLostInATransactionFailsItsCommit() {
        TransactionTemplate tx = new TransactionTemplate(app.getBean(org.springframework.transaction.PlatformTransactionManager.class));
        SpringTransactionSupport support = app.getBean(SpringTransactionSupport.class);
        assertThatThrownBy(() -> tx.executeWithoutResult(status -> {
            app.getBean(JdbcTemplate.class).update("INSERT INTO note (text) VALUES ('lost')");
            support.current().orElseThrow().setRollbackOnly(); // what the core does when a lock is lost
        })).isInstanceOf(LockNotHeldException.class).hasMessageContaining("lock this transaction relied on was lost");
        assertThat(notes("lost")).isZero();
    }

    @Test
    void outsideATransactionThereIsNone() {
        assertThat(app.getBean(SpringTransactionSupport.class).current()).isEmpty();
        try (LockHandle lock = locks.acquire("plain")) {
            assertThat(lock.scope()).isEqualTo(LockScope.LEASE);
        }
    }

    @Test
    void lockedMethodsHoldTheirLockWhileTheyRun() {
        LockedJobs jobs = app.getBean(LockedJobs.class);
        String result = jobs.run(new LockedJobs.Job("export", 3),
                () -> assertThat(freeForAnotherThread("job:export:3")).as("held while the method runs").isFalse());
        assertThat(result).isEqualTo("export");
        assertThat(freeForAnotherThread("job:export:3")).as("released when it returns").isTrue();
    }

    @Test
    void aLockedMethodThatIsBusyElsewhereIsNotCalled() throws Exception {
        LockedJobs jobs = app.getBean(LockedJobs.class);
        LockHandle elsewhere = otherThread.submit(() -> locks.acquire("job:import:1")).get(60, TimeUnit.SECONDS);
        try {
            boolean[] called = {false};
            assertThatThrownBy(() -> jobs.run(new LockedJobs.Job("import", 1), () -> called[0] = true))
                    .isInstanceOf(io.txlock.LockTimeoutException.class);
            assertThat(called[0]).isFalse();
        } finally {
            otherThread.submit(elsewhere::close).get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void theProxyCreatorIsTheOneThisVariantExpects() {
        assertThat(app.getBean(org.springframework.aop.config.AopConfigUtils.AUTO_PROXY_CREATOR_BEAN_NAME).getClass().getSimpleName())
                .isEqualTo(expectedProxyCreator());
    }

    /** @return the simple class name of the auto-proxy creator this variant runs with */
    abstract String expectedProxyCreator();

    @Test
    void theTransactionManagerIsTheOneThisVariantExpects() {
        assertThat(app.getBean(org.springframework.transaction.PlatformTransactionManager.class).getClass().getSimpleName())
                .isEqualTo(expectedTransactionManager());
    }

    /** @return the simple class name of the transaction manager this variant runs with */
    abstract String expectedTransactionManager();

    @Test
    void aLockedTransactionalMethodKeepsItsLockUntilCommit() {
        LockScope scope = app.getBean(LockedJobs.class).runInTransaction("nightly",
                () -> assertThat(freeForAnotherThread("tx-job:nightly")).isFalse());
        assertThat(scope).as("the aspect runs inside the transaction").isEqualTo(LockScope.TRANSACTION);
        assertThat(freeForAnotherThread("tx-job:nightly")).isTrue();
    }

    @Test
    void aClassLevelLockedAppliesToItsPublicMethods() {
        int result = app.getBean(ReportJobs.class).generate(() -> assertThat(freeForAnotherThread("reports")).isFalse());
        assertThat(result).isEqualTo(1);
        assertThat(freeForAnotherThread("reports")).isTrue();
    }

    @Test
    void theReadmeQuickStartRuns() {
        JdbcTemplate jdbc = app.getBean(JdbcTemplate.class);
        jdbc.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, customer_id BIGINT NOT NULL, state VARCHAR(20) NOT NULL, fence BIGINT)");
        jdbc.update("INSERT INTO orders (id, customer_id, state) VALUES (1, 7, 'NEW'), (2, 7, 'NEW')");
        OrderService orders = app.getBean(OrderService.class);
        orders.ship(1);
        assertThat(jdbc.queryForObject("SELECT fence FROM orders WHERE id = 1", Long.class)).isPositive();
        assertThat(freeForAnotherThread("order:1")).isTrue();
        assertThat(orders.invoice(7)).isEqualTo(1);
        assertThat(jdbc.queryForList("SELECT state FROM orders ORDER BY id", String.class)).containsExactly("INVOICED", "NEW");
    }

    @Test
    void theHealthIndicatorIsUpWithTheProvider() {
        Health health = app.getBean("txlockHealthIndicator", HealthIndicator.class).health();
        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat(health.getDetails()).containsEntry("provider", app.getBean(JdbcLockProvider.class).describe())
                .containsEntry("instanceId", locks.instanceId());
        assertThat(app.getBean(HealthEndpoint.class).healthForPath("txlock").getStatus()).isEqualTo(Status.UP);
    }

    @Test
    void metricsGoToTheApplicationsMeterRegistry() {
        locks.acquire("metered").close();
        MeterRegistry registry = app.getBean(MeterRegistry.class);
        long granted = registry.find("txlock.acquire").tags("outcome", "granted").timers().stream().mapToLong(Timer::count).sum();
        assertThat(granted).isPositive();
        assertThat(registry.find("txlock.held.active").gauge()).isNotNull();
    }

    /** Actuator's ObservationRegistry turns each observation into a timer of the application's MeterRegistry. */
    @Test
    void observationsGoToTheApplicationsObservationRegistry() {
        locks.acquire("observed").close();
        MeterRegistry registry = app.getBean(MeterRegistry.class);
        assertThat(registry.find("txlock.lock.acquire").tags("txlock.outcome", "granted", "txlock.provider", "jdbc").timers())
                .as("acquires observed").isNotEmpty();
        assertThat(registry.find("txlock.lock.hold").tags("txlock.outcome", "released").timers()).as("holdings observed").isNotEmpty();
        assertThat(registry.find("txlock.lock.release").timers()).as("releases observed").isNotEmpty();
    }
}
