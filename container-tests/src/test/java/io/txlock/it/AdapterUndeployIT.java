package io.txlock.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.LockHandle;
import io.txlock.LockInfo;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.it.adapterapp.LockHolder;
import io.txlock.jdbc.JdbcDialect;
import io.txlock.jdbc.JdbcLockProvider;
import io.txlock.jdbc.JdbcLockSchema;
import java.sql.Connection;
import java.sql.SQLException;
import jakarta.annotation.Resource;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.OperateOnDeployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.ByteArrayAsset;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Undeploying the application with the adapter releases the locks its lock managers held and leaves no thread of
 * txlock's behind. An observer application on the same database watches while the client deploys the adapter's EAR
 * (whose startup bean {@link LockHolder} takes locks and keeps them) and undeploys it. The observer also defines the
 * datasource of the adapter's {@code java:/txlock/leases} factory, as a server's datasource would be: it outlives the
 * adapter, whose stop releases the lease rows in it. The application's own datasource stops before the adapter does:
 * its row lock ends with its connection.
 */
@ExtendWith(ArquillianExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AdapterUndeployIT {

    private static final String SHARED_JTA = "java:global/txlock-observer/jdbc/txlock";
    private static final String SHARED_NON_JTA = "java:global/txlock-observer/jdbc/txlock-nonjta";
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    /** The database of both deployments, made on the client when the first is built (not in the container). */
    private static ContainerDatabase db;
    /** In the observer: the timer threads before the adapter was deployed. */
    private static Set<String> timersBefore;

    @ArquillianResource
    Deployer deployer;

    @Resource(lookup = "java:app/jdbc/txlock-nonjta")
    DataSource dataSource;

    private static synchronized ContainerDatabase db() {
        if (db == null) {
            db = ContainerDatabase.create();
        }
        return db;
    }

    @Deployment(name = "observer", order = 1)
    static WebArchive observer() {
        ContainerDatabase db = db();
        return ShrinkWrap.create(WebArchive.class, "txlock-observer.war")
                .addClasses(AdapterUndeployIT.class, ContainerDatabase.class)
                .addAsLibraries(AdapterDeployments.file("txlock.jar.lock-manager"), AdapterDeployments.file("txlock.jar.sql"),
                        AdapterDeployments.file("txlock.jar.slf4j-api"), AdapterDeployments.file("txlock.jar.assertj"),
                        AdapterDeployments.file(db.driverJarProperty()))
                .add(new ByteArrayAsset(DataSourceDefinitions.compile(db, Deployments.JTA, Deployments.NON_JTA, SHARED_JTA,
                        SHARED_NON_JTA)), "WEB-INF/classes/" + DataSourceDefinitions.CLASS_NAME.replace('.', '/') + ".class");
    }

    @Deployment(name = "adapter", managed = false, testable = false)
    static EnterpriseArchive adapter() {
        return AdapterDeployments.earOnSharedDataSources("adapter-undeploy", db(), SHARED_JTA, SHARED_NON_JTA,
                LockHolder.class);
    }

    @Test
    @Order(1)
    @OperateOnDeployment("observer")
    void beforeTheDeployment() {
        JdbcLockSchema.create(dataSource, dialect(), "method_lock");
        timersBefore = threads("Timer-");
    }

    @Test
    @Order(2)
    @RunAsClient
    void deploy() {
        deployer.deploy("adapter");
    }

    @Test
    @Order(3)
    @OperateOnDeployment("observer")
    void theAdapterHoldsAndRenewsItsLocksWithoutThreadsOfItsOwn() throws Exception {
        try (LockManager rows = rows(); LockManager leases = leases()) {
            Instant firstUntil = leases.inspect(LockHolder.RENEWED).map(LockInfo::until)
                    .orElseThrow(() -> new AssertionError(LockHolder.RENEWED + " is not held"));
            long deadline = System.nanoTime() + PATIENCE.toNanos();
            Optional<LockInfo> now = leases.inspect(LockHolder.RENEWED);
            while (now.isPresent() && !now.get().until().isAfter(firstUntil) && System.nanoTime() < deadline) {
                Thread.sleep(50); // polls for the adapter's renewal, bounded
                now = leases.inspect(LockHolder.RENEWED);
            }
            assertThat(now).as("held and renewed by the adapter").hasValueSatisfying(info ->
                    assertThat(info.until()).isAfter(firstUntil));
            assertThat(free(rows, LockHolder.ROW_LOCK)).as("the row lock is held by the adapter's application").isFalse();
            assertThat(free(leases, LockHolder.LONG_LEASE)).as("the lease row is held").isFalse();
            assertThat(txlockThreads(rows, leases)).as("threads of txlock's own while the adapter holds and renews")
                    .isEmpty();
        }
    }

    @Test
    @Order(4)
    @RunAsClient
    void undeploy() {
        deployer.undeploy("adapter");
    }

    @Test
    @Order(5)
    @OperateOnDeployment("observer")
    void afterTheUndeploymentNoLockIsHeldAndNoThreadOfTheAdaptersLives() {
        try (LockManager rows = rows(); LockManager leases = leases()) {
            assertThat(txlockThreads(rows, leases)).as("txlock's threads after the undeployment").isEmpty();
            assertThat(threads("Timer-")).as("the adapter's timer thread is gone").isSubsetOf(timersBefore);
            assertThat(free(rows, LockHolder.ROW_LOCK)).as("the row lock is free").isTrue();
            assertThat(free(leases, LockHolder.LONG_LEASE)).as("released by the adapter's stop, long before its lease of"
                    + " 5 min ends").isTrue();
            assertThat(free(leases, LockHolder.RENEWED)).isTrue();
        }
    }

    private JdbcDialect dialect() {
        try (Connection c = dataSource.getConnection()) {
            String product = c.getMetaData().getDatabaseProductName();
            return product.startsWith("H2") ? JdbcDialect.H2
                    : product.startsWith("PostgreSQL") ? JdbcDialect.POSTGRESQL : JdbcDialect.MARIADB;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private LockManager rows() {
        return LockManager.builder(JdbcLockProvider.builder(dataSource).reaperPeriod(Duration.ZERO).build()).build();
    }

    private LockManager leases() {
        return LockManager.builder(JdbcLockProvider.builder(dataSource).strategy(Strategy.OPTIMISTIC_VERSION)
                .reaperPeriod(Duration.ZERO).build()).build();
    }

    private static boolean free(LockManager manager, String name) {
        Optional<LockHandle> lock = manager.tryAcquire(name, LockOptions.defaults().withScope(LockScope.LEASE)
                .withWait(Duration.ZERO));
        lock.ifPresent(LockHandle::release);
        return lock.isPresent();
    }

    /** @return live threads named by txlock, but for the observer's own managers */
    private static List<String> txlockThreads(LockManager... observers) {
        return threads("txlock").stream().filter(name -> java.util.Arrays.stream(observers)
                .noneMatch(m -> name.startsWith("txlock-" + m.instanceId() + "-"))).sorted().toList();
    }

    private static Set<String> threads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> name.startsWith(prefix)).collect(Collectors.toSet());
    }
}
