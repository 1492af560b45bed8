package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lock scenarios on a private etcd server started by the bench pass the checker, against etcd's own Lock RPC. */
class EtcdSmokeTest {

    @Test
    void lockScenariosPassTheCheckerAndMeasureTheFloor() {
        BenchConfig quick = Configs.quick(BackendKind.ETCD, List.of(), List.of("counter", "keys", "handoff"));
        // every etcd write waits for an fsync: on a loaded disk a 0.4 s window may see no lock at all
        BenchConfig config = Configs.withTiming(quick, new Timing(Duration.ofSeconds(1), Duration.ofSeconds(2)));

        BenchReport report = BenchRun.run(config, "test", Progress.silent());

        assertThat(report.errors()).isEmpty();
        assertThat(report.backends()).singleElement().satisfies(b -> assertThat(b.describe()).contains("started by the bench"));
        assertThat(report.results()).hasSize(3).allSatisfy(r -> {
            assertThat(r.strategy()).isEqualTo(EtcdBackend.STRATEGY);
            assertThat(r.failures()).as(r.scenario()).isEmpty();
            assertThat(r.way("txlock").ops()).as(r.scenario()).isPositive();
        });
        assertThat(report.results().get(0).way("txlock").count("lost updates")).isZero();
        assertThat(report.results().get(1).way("floor").describe()).contains("put-if-absent");
        assertThat(report.results().get(2).way("floor").describe()).contains("Lock RPC");
        assertThat(report.results().get(2).way("floor").handoff().count()).isPositive();
    }
}
