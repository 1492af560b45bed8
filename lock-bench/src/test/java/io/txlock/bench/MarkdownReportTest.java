package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The README's tables as lock-bench writes them: every figure and ratio in its column. */
class MarkdownReportTest {

    private static Measurement way(String way, double throughput, double handoffP99Micros, Map<String, Long> counts) {
        Latency handoff = handoffP99Micros > 0 ? new Latency(100, handoffP99Micros / 2, handoffP99Micros / 2, handoffP99Micros,
                handoffP99Micros, handoffP99Micros, handoffP99Micros) : Latency.none();
        return new Measurement(way, "", (long) throughput, 1, throughput, Latency.none(), Latency.none(), handoff,
                Checker.Verdict.empty(), new LinkedHashMap<>(counts), List.of());
    }

    private static Measurement way(String way, double throughput, double handoffP99Micros) {
        return way(way, throughput, handoffP99Micros, Map.of());
    }

    private static ScenarioResult result(String strategy, String scenario, Measurement... ways) {
        return new ScenarioResult("postgresql", strategy, scenario, "", new ArrayList<>(List.of(ways)), List.of(), null, List.of());
    }

    @Test
    void aStrategyRowHoldsEachScenarioAgainstItsYardstickAndTheBestPeer() {
        Measurement shedLock = way(ShedLockPeer.NAME, 1000, 20_000);
        Measurement registry = way(JdbcLockRegistryPeer.NAME, 1250, 40_000);
        List<ScenarioResult> results = List.of(
                result("OPTIMISTIC_VERSION", "orders", way("txlock", 700, 0), way("seed", 350, 0), shedLock, registry),
                result("OPTIMISTIC_VERSION", "counter", way("txlock", 66.5, 0, Map.of("lost updates", 0L))),
                result("OPTIMISTIC_VERSION", "keys", way("txlock", 1500, 0), way("floor", 3000, 0), shedLock, registry),
                result("OPTIMISTIC_VERSION", "handoff", way("txlock", 100, 5_000), way("floor", 100, 2_500), shedLock, registry));
        BenchReport report = new BenchReport("java -jar lock-bench.jar --backend postgresql", Instant.parse("2026-11-26T01:13:29Z"),
                558.4, new MachineInfo("cpu", 2, "23.5 GiB RAM", "Linux", "Java 17"), "0.40 0.40 0.18", "7.68 9.94 5.94",
                List.of(), results, List.of(), List.of());

        String md = MarkdownReport.markdown(report);

        assertThat(md).startsWith("```\njava -jar lock-bench.jar --backend postgresql\n```\n\n2026-11-26T01:13:29 UTC, 558 s, ")
                .contains("load average 0.40 0.40 0.18 at the start, 7.68 9.94 5.94 at the end. Checker passed on every run.")
                .contains("| postgresql | keys ops/s | 1,500 (OPTIMISTIC_VERSION) | 1,250 (JdbcLockRegistry) | 1.20x |")
                .contains("| postgresql | handoff p99 | 5.00 ms (OPTIMISTIC_VERSION) | 20.0 ms (ShedLock) | 0.25x |")
                .contains("| postgresql | OPTIMISTIC_VERSION | 700 / 350 / JdbcLockRegistry 1,250 (0.56x) | 66.5, 0"
                        + " | 1,500 / 3,000 / JdbcLockRegistry 1,250 (0.50x, 1.20x, ShedLock 1.50x)"
                        + " | 5.00 ms / 2.50 ms / ShedLock 20.0 ms (2.00x, 0.25x) | passed |");
    }
}
