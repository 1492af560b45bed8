package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A short run of every scenario and strategy on embedded H2 passes the checker and produces figures and a report, with
 * the peers (ShedLock, JdbcLockRegistry) beside txlock in orders, keys and handoff.
 */
class H2SmokeTest {

    @Test
    void everyScenarioPassesTheCheckerAndIsMeasured(@TempDir Path reportDir) throws Exception {
        BenchConfig config = Configs.quick(BackendKind.H2, List.of(), List.of("orders", "counter", "keys", "handoff"));

        BenchReport report = BenchRun.run(config, "test", Progress.silent());

        assertThat(report.errors()).isEmpty();
        assertThat(report.results()).extracting(r -> r.scenario() + " " + r.strategy()).containsExactly(
                "orders SELECT_FOR_UPDATE", "orders OPTIMISTIC_VERSION", "orders UNIQUE_INSERT", "orders CLAIM",
                "counter SELECT_FOR_UPDATE", "counter OPTIMISTIC_VERSION", "counter UNIQUE_INSERT",
                "keys SELECT_FOR_UPDATE", "keys OPTIMISTIC_VERSION", "keys UNIQUE_INSERT",
                "handoff SELECT_FOR_UPDATE", "handoff OPTIMISTIC_VERSION", "handoff UNIQUE_INSERT");
        for (ScenarioResult r : report.results()) {
            String what = r.scenario() + " " + r.strategy();
            assertThat(r.failures()).as(what).isEmpty();
            Measurement txlock = r.way("txlock");
            assertThat(txlock.verdict().sections()).as(what).isPositive();
            if (txlock.ops() > 0) {
                assertThat(txlock.latency().p99()).as(what).isGreaterThanOrEqualTo(txlock.latency().p50()).isPositive();
            }
        }
        // a loaded machine may finish nothing inside a short window, but not in all of them
        assertThat(report.results().stream().mapToLong(r -> r.way("txlock").ops()).sum()).isPositive();
        for (String scenario : List.of("orders", "counter")) {
            assertThat(results(report, scenario).stream().mapToLong(r -> r.way("txlock").ops()).sum())
                    .as("%s: operations of the warm-up are finished, not measured", scenario)
                    .isLessThan(results(report, scenario).stream().mapToLong(r -> r.way("txlock").finished()).sum());
        }
        for (ScenarioResult r : report.results()) {
            for (Measurement m : r.measurements()) {
                if (!r.scenario().equals("orders")) {
                    String what = r.scenario() + " " + r.strategy() + " " + m.way();
                    assertThat(m.count("lost updates")).as(what).isZero();
                    assertThat(m.count("counter")).as(what).isEqualTo(m.count("increments")).isEqualTo(m.finished());
                }
            }
        }
        for (ScenarioResult orders : results(report, "orders")) {
            Measurement txlock = orders.way("txlock");
            assertThat(txlock.count("orders")).isPositive();
            assertThat(txlock.count("duplicates")).isZero();
            assertThat(txlock.count("not stored")).isZero();
            assertThat(txlock.count("stored")).as("every order stored exactly once").isEqualTo(txlock.count("orders"));
            assertThat(orders.way("seed").verdict().sections()).isPositive();
        }
        for (ScenarioResult counter : results(report, "counter")) {
            assertThat(counter.way("txlock").count("counter")).isEqualTo(counter.way("txlock").verdict().sections());
        }
        for (ScenarioResult keys : results(report, "keys")) {
            assertThat(keys.way("floor").verdict().sections()).isPositive();
            assertThat(keys.ratio().value()).isEqualTo(keys.way("txlock").throughput() / keys.way("floor").throughput());
        }
        assertThat(results(report, "handoff").get(0).way("floor").handoff().count()).isPositive();
        assertThat(results(report, "handoff").stream().mapToLong(r -> r.way("txlock").handoff().count()).sum()).isPositive();

        for (ScenarioResult r : report.results()) {
            if (!r.scenario().equals("counter")) {
                String what = r.scenario() + " " + r.strategy();
                assertThat(r.peers()).as(what).extracting(Measurement::way).containsExactly(ShedLockPeer.NAME, JdbcLockRegistryPeer.NAME);
                assertThat(r.peers()).as(what).allSatisfy(p -> {
                    assertThat(p.verdict().passed()).as(what + " " + p.way()).isTrue();
                    assertThat(p.notes()).as(what + " " + p.way()).noneMatch(n -> n.startsWith(LockScenario.PEER_VIOLATION));
                });
                assertThat(r.targets()).as(what).anyMatch(t -> t.what().startsWith("txlock/best peer"));
            }
        }
        assertThat(PeerComparison.lines(report.results())).extracting(PeerComparison.Line::scenario)
                .containsExactly("orders", "keys", "handoff");

        Path html = HtmlReport.write(report, reportDir);
        assertThat(Files.readString(html)).contains("<svg").contains("Handoff latency").contains("Checker passed")
                .doesNotContain("http://cdn").doesNotContain("<script src");
        assertThat(Files.readString(reportDir.resolve("results.json"))).startsWith("{").contains("\"passed\": true")
                .contains("\"scenario\": \"handoff\"").contains("\"p99\"").contains("\"txlockVsBestPeer\"");
    }

    private static List<ScenarioResult> results(BenchReport report, String scenario) {
        return report.results().stream().filter(r -> r.scenario().equals(scenario)).toList();
    }
}
