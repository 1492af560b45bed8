package io.txlock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.txlock.LockAdmin;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.jdbc.JdbcLockProvider;
import io.txlock.spi.LockProvider;
import io.txlock.spi.TransactionSupport;
import io.txlock.testkit.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Observations of acquires, holdings and releases, recorded in Micrometer's {@link TestObservationRegistry} by managers
 * over H2 (OPTIMISTIC_VERSION, whose locks an operator can force-release): what each observation is named and
 * carries, how it ends, and that meters and observations record side by side.
 */
@Timeout(120)
class MicrometerLockObservationsTest {

    private static final LockOptions LEASE = LockOptions.defaults().withScope(LockScope.LEASE).withWait(Duration.ofSeconds(30));

    private final TestObservationRegistry registry = TestObservationRegistry.create();
    private final HikariDataSource h2 = TestDatabase.inMemoryH2("observations", 8);
    private final List<LockManager> managers = new ArrayList<>();

    @AfterEach
    void close() {
        managers.forEach(LockManager::close);
        h2.close();
    }

    private LockProvider provider() {
        return JdbcLockProvider.builder(h2).strategy(Strategy.OPTIMISTIC_VERSION).reaperPeriod(Duration.ZERO).build();
    }

    private LockManager observed() {
        LockProvider provider = provider();
        return keep(LockManager.builder(provider).transactions(TransactionSupport.none())
                .metrics(MicrometerLockObservations.of(registry, provider)).build());
    }

    private LockManager keep(LockManager manager) {
        managers.add(manager);
        return manager;
    }

    @Test
    void anAcquireAHoldingAndItsReleaseAreObservedWithNameTokenAndOutcome() {
        LockManager locks = observed();
        long token;
        try (LockHandle lock = locks.acquire("order:42", LEASE)) {
            token = lock.fencingToken();
            TestObservationRegistryAssert.assertThat(registry).hasObservationWithNameEqualTo(MicrometerLockObservations.HOLD)
                    .that().hasBeenStarted().isNotStopped();
        }
        TestObservationRegistryAssert.assertThat(registry)
                .hasObservationWithNameEqualTo(MicrometerLockObservations.ACQUIRE).that()
                .hasContextualNameEqualTo("txlock acquire")
                .hasLowCardinalityKeyValue("txlock.provider", "jdbc").hasLowCardinalityKeyValue("txlock.scope", "lease")
                .hasLowCardinalityKeyValue("txlock.outcome", "granted").hasHighCardinalityKeyValue("txlock.name", "order:42")
                .doesNotHaveHighCardinalityKeyValueWithKey("txlock.fencing_token").hasBeenStopped();
        TestObservationRegistryAssert.assertThat(registry)
                .hasObservationWithNameEqualTo(MicrometerLockObservations.HOLD).that()
                .hasLowCardinalityKeyValue("txlock.outcome", "released").hasHighCardinalityKeyValue("txlock.name", "order:42")
                .hasHighCardinalityKeyValue("txlock.fencing_token", Long.toString(token)).hasBeenStopped();
        TestObservationRegistryAssert.assertThat(registry)
                .hasObservationWithNameEqualTo(MicrometerLockObservations.RELEASE).that()
                .hasHighCardinalityKeyValue("txlock.fencing_token", Long.toString(token)).hasBeenStopped();
        assertThat(names()).as("observations, in the order they started")
                .containsExactly(MicrometerLockObservations.ACQUIRE, MicrometerLockObservations.HOLD, MicrometerLockObservations.RELEASE);
    }

    @Test
    void anAcquireAsksWithinTheCallersObservationAndEndsWithItsOutcome() {
        LockManager holder = keep(LockManager.builder(provider()).transactions(TransactionSupport.none()).build());
        LockManager locks = observed();
        LockHandle held = holder.acquire("report", LEASE);
        Observation request = Observation.start("http.request", registry);
        try (Observation.Scope scope = request.openScope()) {
            assertThat(locks.tryAcquire("report")).isEmpty();
        }
        request.stop();
        held.release();
        TestObservationRegistryAssert.assertThat(registry)
                .hasObservationWithNameEqualTo(MicrometerLockObservations.ACQUIRE).that()
                .hasLowCardinalityKeyValue("txlock.outcome", "timeout").hasParentObservationEqualTo(request).hasBeenStopped();
        TestObservationRegistryAssert.assertThat(registry).hasNumberOfObservationsWithNameEqualTo(MicrometerLockObservations.HOLD, 0);
    }

    @Test
    void aHoldingForceReleasedByAnOperatorEndsLostWithItsReason() throws Exception {
        LockManager locks = observed();
        LockHandle lock = locks.acquire("job:stuck", LEASE.withLease(Duration.ofSeconds(3)));
        CountDownLatch lost = new CountDownLatch(1);
        lock.onLost(lost::countDown);
        try (LockProvider admin = provider()) {
            LockAdmin.over(admin).operator("test").forceRelease("job:stuck", lock.fencingToken());
        }
        assertThat(lost.await(30, TimeUnit.SECONDS)).as("the holder learned it lost the lock").isTrue();
        TestObservationRegistryAssert.assertThat(registry)
                .hasObservationWithNameEqualTo(MicrometerLockObservations.HOLD).that()
                .hasLowCardinalityKeyValue("txlock.outcome", "lost").hasHighCardinalityKeyValueWithKey("txlock.lost_reason")
                .hasBeenStopped();
    }

    @Test
    void metersAndObservationsRecordSideBySide() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        LockProvider provider = provider();
        LockManager locks = keep(LockManager.builder(provider).transactions(TransactionSupport.none())
                .metrics(MicrometerLockMetrics.of(meters, provider)).metrics(MicrometerLockObservations.of(registry, provider))
                .build());
        locks.acquire("both", LEASE).release();
        assertThat(meters.get("txlock.acquire").tags("scope", "lease", "outcome", "granted", "reentrant", "false").timer().count()).isEqualTo(1);
        assertThat(meters.get("txlock.held").tags("scope", "lease").timer().count()).isEqualTo(1);
        assertThat(names()).containsExactly(MicrometerLockObservations.ACQUIRE, MicrometerLockObservations.HOLD,
                MicrometerLockObservations.RELEASE);
    }

    private List<String> names() {
        List<String> names = new ArrayList<>();
        TestObservationRegistryAssert.assertThat(registry).hasHandledContextsThatSatisfy(
                contexts -> contexts.forEach(c -> names.add(c.getName())));
        return names;
    }
}
