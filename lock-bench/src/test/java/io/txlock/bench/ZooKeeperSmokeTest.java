package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The lock scenarios on an embedded ZooKeeper server pass the checker, against Curator's own recipe as floor and peer. */
class ZooKeeperSmokeTest {

    @Test
    void lockScenariosPassTheCheckerAndMeasureTheFloor() {
        BenchConfig config = Configs.quick(BackendKind.ZOOKEEPER, List.of(), List.of("counter", "keys", "handoff"));

        BenchReport report = BenchRun.run(config, "test", Progress.silent());

        assertThat(report.errors()).isEmpty();
        assertThat(report.backends()).singleElement().satisfies(b -> assertThat(b.describe()).contains("embedded"));
        assertThat(report.results()).hasSize(3).allSatisfy(r -> {
            assertThat(r.strategy()).isEqualTo(ZooKeeperBackend.STRATEGY);
            assertThat(r.failures()).as(r.scenario()).isEmpty();
            assertThat(r.way("txlock").ops()).as(r.scenario()).isPositive();
        });
        assertThat(report.results().get(0).way("txlock").count("lost updates")).isZero();
        assertThat(report.results().get(2).way("floor").describe()).contains("InterProcessMutex");
        assertThat(report.results().get(2).way("floor").handoff().count()).isPositive();
        assertThat(report.results().subList(1, 3)).allSatisfy(r -> assertThat(r.peers()).singleElement().satisfies(p -> {
            assertThat(p.way()).isEqualTo(CuratorPeer.NAME);
            assertThat(p.verdict().passed()).isTrue();
            assertThat(p.verdict().sections()).isPositive();
        }));
        assertThat(report.results().get(1).targets()).filteredOn(t -> t.what().equals("txlock/best peer (Curator) throughput"))
                .singleElement().satisfies(t -> assertThat(t.applies()).isTrue());
    }
}
