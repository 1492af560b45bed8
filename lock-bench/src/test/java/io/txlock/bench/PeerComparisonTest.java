package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import org.junit.jupiter.api.Test;

/** txlock against its best peer: which peer is best by which figure, the targets issue 14 sets, the per-backend lines. */
class PeerComparisonTest {

    private static Measurement way(String way, double throughput, double handoffP99Micros) {
        Latency handoff = handoffP99Micros > 0 ? new Latency(100, handoffP99Micros / 2, handoffP99Micros / 2, handoffP99Micros,
                handoffP99Micros, handoffP99Micros, handoffP99Micros) : Latency.none();
        return new Measurement(way, "", (long) throughput, 1, throughput, Latency.none(), Latency.none(), handoff,
                Checker.Verdict.empty(), new LinkedHashMap<>(), List.of());
    }

    private static ScenarioResult result(String backend, String strategy, String scenario, Measurement txlock, Measurement... peers) {
        List<Measurement> all = new java.util.ArrayList<>(List.of(txlock));
        all.addAll(List.of(peers));
        return new ScenarioResult(backend, strategy, scenario, "", all, List.of(), null, List.of());
    }

    @Test
    void theBestPeerHasTheHighestThroughputOrTheLowestHandoffP99() {
        Measurement shedLock = way(ShedLockPeer.NAME, 1000, 900);
        Measurement registry = way(JdbcLockRegistryPeer.NAME, 600, 400);

        assertThat(PeerComparison.best(false, List.of(shedLock, registry))).containsSame(shedLock);
        assertThat(PeerComparison.best(true, List.of(shedLock, registry))).containsSame(registry);
        assertThat(PeerComparison.best(true, List.of(way("none", 5, 0)))).isEmpty();
    }

    @Test
    void rowWritingStrategiesMustReachOneAndAHalfTimesShedLockUncontendedOnPostgresqlAndMariadb() {
        List<Measurement> peers = List.of(way(ShedLockPeer.NAME, 1000, 0), way(JdbcLockRegistryPeer.NAME, 1200, 0));

        List<Target> optimistic = PeerComparison.targets("keys", BackendKind.POSTGRESQL, "OPTIMISTIC_VERSION", way("txlock", 1400, 0), peers);
        List<Target> rowLock = PeerComparison.targets("keys", BackendKind.MARIADB, "SELECT_FOR_UPDATE", way("txlock", 1400, 0), peers);
        List<Target> h2 = PeerComparison.targets("keys", BackendKind.H2, "UNIQUE_INSERT", way("txlock", 1400, 0), peers);

        assertThat(optimistic).extracting(Target::what).containsExactly("txlock/best peer (JdbcLockRegistry) throughput",
                "txlock/ShedLock throughput");
        assertThat(optimistic.get(0).verdict()).isEqualTo(Target.Verdict.INFO);
        assertThat(optimistic.get(1).value()).isEqualTo(1.4);
        assertThat(optimistic.get(1).verdict()).isEqualTo(Target.Verdict.MISSED);
        assertThat(rowLock).extracting(Target::what).containsExactly("txlock/best peer (JdbcLockRegistry) throughput");
        assertThat(h2).hasSize(1);
    }

    @Test
    void zookeeperMustReachCuratorUncontendedAndHandoffsAreOnlyShown() {
        List<Measurement> curator = List.of(way(CuratorPeer.NAME, 2000, 5000));

        Target keys = PeerComparison.targets("keys", BackendKind.ZOOKEEPER, "EPHEMERAL_SEQUENTIAL", way("txlock", 1800, 0), curator).get(0);
        Target handoff = PeerComparison.targets("handoff", BackendKind.ZOOKEEPER, "EPHEMERAL_SEQUENTIAL", way("txlock", 900, 4000),
                curator).get(0);

        assertThat(keys.value()).isEqualTo(0.9);
        assertThat(keys.verdict()).isEqualTo(Target.Verdict.MISSED);
        assertThat(handoff.what()).isEqualTo("txlock/best peer (Curator) handoff p99");
        assertThat(handoff.value()).isEqualTo(0.8);
        assertThat(handoff.atLeast()).isFalse();
        assertThat(handoff.verdict()).isEqualTo(Target.Verdict.INFO);
        assertThat(PeerComparison.targets("keys", BackendKind.ETCD, "KEY_QUEUE", way("txlock", 1, 0), List.of())).isEmpty();
    }

    @Test
    void aBackendsLineSetsTxlocksBestLockStrategyAgainstTheBestPeerLeavingClaimsOut() {
        Measurement shedLock = way(ShedLockPeer.NAME, 1000, 900);
        Measurement registry = way(JdbcLockRegistryPeer.NAME, 600, 400);
        List<ScenarioResult> results = List.of(
                result("postgresql", "SELECT_FOR_UPDATE", "keys", way("txlock", 3000, 0), shedLock, registry),
                result("postgresql", "OPTIMISTIC_VERSION", "keys", way("txlock", 800, 0), shedLock, registry),
                result("postgresql", "SELECT_FOR_UPDATE", "handoff", way("txlock", 500, 300), shedLock, registry),
                result("postgresql", "UNIQUE_INSERT", "handoff", way("txlock", 100, 9000), shedLock, registry),
                result("postgresql", "SELECT_FOR_UPDATE", "orders", way("txlock", 700, 0), shedLock, registry),
                result("postgresql", OrdersScenario.CLAIM, "orders", way("txlock", 5000, 0), shedLock, registry),
                result("etcd", "KEY_QUEUE", "keys", way("txlock", 50, 0)));

        List<PeerComparison.Line> lines = PeerComparison.lines(results);

        assertThat(lines).extracting(l -> l.backend() + " " + l.scenario() + " " + l.strategy() + " " + l.peer() + " " + l.ratio())
                .containsExactly("postgresql keys SELECT_FOR_UPDATE ShedLock 3.0", "postgresql handoff SELECT_FOR_UPDATE JdbcLockRegistry 0.75",
                        "postgresql orders SELECT_FOR_UPDATE ShedLock 0.7");
    }
}
