package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Workers in separate JVMs, one of them killed with kill -9 while it holds the lock: on embedded H2 (served over
 * TCP), the machine's PostgreSQL and Redis (under a random key prefix), an embedded ZooKeeper and a private etcd.
 */
class ProcessClusterTest {

    static Stream<Arguments> leases() {
        return Stream.of(arguments(BackendKind.H2, "OPTIMISTIC_VERSION"), arguments(BackendKind.REDIS, RedisBackend.STRATEGY),
                arguments(BackendKind.ZOOKEEPER, ZooKeeperBackend.STRATEGY), arguments(BackendKind.ETCD, EtcdBackend.STRATEGY));
    }

    /** A leased row, a Redis key, a ZooKeeper session, an etcd lease: the dead holder's lock outlives it by its lease. */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("leases")
    void aKilledHoldersLeaseRunsOutAndTheLockComesBackWithAGreaterTokenAndNoUpdateIsLost(BackendKind kind, String strategy)
            throws Exception {
        Duration lease = Duration.ofSeconds(1);

        ScenarioResult result = killAHolder(kind, strategy, lease);

        assertThat(result.kill().recoveredAfterMillis()).as("the lease outlives the dead holder, and not by much more")
                .isGreaterThan(0).isLessThan(lease.toMillis() + 5_000);
    }

    /** A row lock ({@code SELECT … FOR UPDATE}) is the database's: it ends when the database sees the connection die. */
    @ParameterizedTest(name = "{0} SELECT_FOR_UPDATE")
    @MethodSource("databases")
    void aKilledHoldersRowLockIsFreedByTheDatabaseLongBeforeItsLeaseCouldRunOut(BackendKind kind) throws Exception {
        Duration lease = Duration.ofSeconds(60);

        ScenarioResult result = killAHolder(kind, "SELECT_FOR_UPDATE", lease);

        assertThat(result.kill().recoveredAfterMillis()).as("freed with the dead connection, not by the lease")
                .isGreaterThan(0).isLessThan(lease.toMillis());
    }

    static Stream<BackendKind> databases() {
        return Stream.of(BackendKind.H2, BackendKind.POSTGRESQL);
    }

    private static ScenarioResult killAHolder(BackendKind kind, String strategy, Duration lease) throws Exception {
        BenchConfig config = Configs.inProcesses(Configs.quick(kind, List.of(strategy), List.of("counter")), 2, true, lease);

        List<ScenarioResult> results;
        try (Backend backend = Backends.open(BackendSpec.defaults(kind), config.connections(), config.rowLockConnections(), true, lease)) {
            results = new CounterScenario().run(backend, List.of(strategy), config, Progress.silent());
        }

        ScenarioResult result = results.get(0);
        assertThat(result.failures()).isEmpty();
        assertThat(result.settings()).contains("2 worker JVMs");
        KillReport kill = result.kill();
        assertThat(kill).isNotNull();
        assertThat(kill.jvmWorkers()).contains(kill.worker()).hasSize(2);
        assertThat(kill.recovered()).isTrue();
        assertThat(kill.nextToken()).isGreaterThan(kill.token());
        Measurement txlock = result.way("txlock");
        assertThat(txlock.verdict().sections()).isPositive();
        assertThat(txlock.verdict().sections()).as("the killed holder's section is checked with the others")
                .isEqualTo(txlock.finished() + 1);
        assertThat(txlock.count("lost updates")).isZero();
        assertThat(txlock.count("counter")).isEqualTo(txlock.count("increments") + txlock.count("unreported increments"));
        return result;
    }
}
