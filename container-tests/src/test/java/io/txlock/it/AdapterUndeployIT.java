package io.txlock.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.LockHandle;
import io.txlock.LockInfo;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.it.adapterapp.AdapterSchema;
import io.txlock.it.adapterapp.LockHolder;
import io.txlock.jdbc.JdbcLockProvider;
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
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.ByteArrayAsset;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Undeploying the application with the adapter releases the locks its lock managers held and leaves no thread of
 * txlock's behind. An observer application on the same database deploys the adapter's EAR (whose startup bean takes a
 * lock and keeps it, renewed), sees the lock held and renewed with no thread of txlock's running, undeploys the EAR,
 * and takes the lock at once.
 */
@ExtendWith(ArquillianExtension.class)
class AdapterUndeployIT {

    /** The database of both deployments, made on the client when the first is built (not in the container). */
    private static ContainerDatabase db;
    /** {@link LockHolder}'s locks (the observer does not deploy that class). */
    private static final String RENEWED = "renewed-until-undeploy";
    private static final String LONG_LEASE = "held-at-undeploy";

    private static synchronized ContainerDatabase db() {
        if (db == null) {
            db = ContainerDatabase.create();
        }
        return db;
    }

    @Deployment(name = "observer", order = 1)
    static WebArchive observer() {
        ContainerDatabase db = db();
        return ShrinkWrap.create(WebArchive.class, "adapter-observer.war")
                .addClasses(AdapterUndeployIT.class, ContainerDatabase.class)
                .addAsLibraries(AdapterDeployments.file("txlock.jar.lock-manager"), AdapterDeployments.file("txlock.jar.sql"),
                        AdapterDeployments.file("txlock.jar.slf4j-api"), AdapterDeployments.file("txlock.jar.assertj"),
                        AdapterDeployments.file(db.driverJarProperty()))
                .add(new ByteArrayAsset(DataSourceDefinitions.compile(db)),
                        "WEB-INF/classes/" + DataSourceDefinitions.CLASS_NAME.replace('.', '/') + ".class");
    }

    @Deployment(name = "adapter", managed = false, testable = false)
    static EnterpriseArchive adapter() {
        return AdapterDeployments.ear("adapter-undeploy", db(), AdapterSchema.class, LockHolder.class);
    }

    @ArquillianResource
    Deployer deployer;

    @Resource(lookup = "java:app/jdbc/txlock-nonjta")
    DataSource dataSource;

    @Test
    @OperateOnDeployment("observer")
    void undeployingTheAdapterReleasesItsLocksAndLeavesNoThreadOfTxlocksBehind() throws Exception {
        Set<String> timersBefore = threads("Timer-");
        deployer.deploy("adapter");
        try (LockManager observer = LockManager.builder(JdbcLockProvider.builder(dataSource)
                .strategy(Strategy.OPTIMISTIC_VERSION).reaperPeriod(Duration.ZERO).build()).build()) {
            try {
                Instant firstUntil = observer.inspect(RENEWED).map(LockInfo::until)
                        .orElseThrow(() -> new AssertionError(RENEWED + " is not held"));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                Optional<LockInfo> now = observer.inspect(RENEWED);
                while (now.isPresent() && !now.get().until().isAfter(firstUntil) && System.nanoTime() < deadline) {
                    Thread.sleep(50); // polls for the adapter's renewal, bounded
                    now = observer.inspect(RENEWED);
                }
                assertThat(now).as("held and renewed by the adapter").hasValueSatisfying(info ->
                        assertThat(info.until()).isAfter(firstUntil));
                for (String name : List.of(RENEWED, LONG_LEASE)) {
                    assertThat(observer.tryAcquire(name, LockOptions.defaults().withScope(LockScope.LEASE)
                            .withWait(Duration.ZERO))).as(name + " is held by the adapter's application").isEmpty();
                }
                assertThat(txlockThreads(observer)).as("threads of txlock's own while the adapter holds and renews")
                        .isEmpty();
            } finally {
                deployer.undeploy("adapter");
            }
            assertThat(txlockThreads(observer)).as("txlock's threads after the undeployment").isEmpty();
            assertThat(threads("Timer-")).as("the adapter's timer thread is gone").isSubsetOf(timersBefore);
            Optional<LockHandle> taken = observer.tryAcquire(LONG_LEASE, LockOptions.defaults()
                    .withScope(LockScope.LEASE).withWait(Duration.ZERO));
            assertThat(taken).as("released by the adapter's stop: free long before its lease of 5 min ends").isPresent();
            taken.get().release();
        }
    }

    /** @return live threads named by txlock, but for the observer's own manager */
    private static List<String> txlockThreads(LockManager observer) {
        return threads("txlock").stream().filter(name -> !name.startsWith("txlock-" + observer.instanceId() + "-"))
                .sorted().toList();
    }

    private static Set<String> threads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> name.startsWith(prefix)).collect(Collectors.toSet());
    }
}
