package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The "Cost per operation" table of short real runs: numbers where they can be read, "-" with a reason where not. */
class CostReportTest {

    private static final String HEADING = "\n### " + CostTable.TITLE + "\n";

    @Test
    void embeddedH2HasBenchCpuPerOperationAndNoServerColumn() {
        BenchReport report = run(Configs.quick(BackendKind.H2, List.of("SELECT_FOR_UPDATE"), List.of("keys", "handoff")));
        String md = MarkdownReport.markdown(report);

        List<List<String>> rows = rows(md, "h2");
        assertThat(rows).extracting(r -> r.get(1) + " " + r.get(3)).contains("keys txlock", "keys floor", "handoff txlock",
                "handoff floor", "keys " + ShedLockPeer.NAME, "handoff " + JdbcLockRegistryPeer.NAME);
        assertThat(rows).allSatisfy(r -> {
            assertThat(Double.parseDouble(r.get(5))).as(r.toString()).isPositive();
            assertThat(r.get(6)).as(r.toString()).isEqualTo("-");
            assertThat(r.get(8)).as(r.toString()).isEqualTo("-");
            assertThat(r.get(9)).as("fsyncs: " + r).isEqualTo("-");
        });
        assertThat(rows).filteredOn(r -> r.get(3).equals("txlock")).allSatisfy(r -> assertThat(r.get(10)).matches("\\d+\\.\\d\\dx, -"));
        assertThat(md).contains("- h2: embedded H2 runs in the bench JVM: its CPU is in the bench JVM's column");
        assertThat(HtmlReport.html(report)).contains("<h2>Cost per operation</h2>");
        assertThat(Json.write(report)).contains("\"benchCpuMicrosPerOp\": ").contains("\"serverCpuMicrosPerOp\": \"NaN\"");
        assertThat(report.results().stream().flatMap(r -> r.measurements().stream()).map(m -> m.cost().jitMillis()))
                .as("the JIT compiler's ms in each way's window").isNotEmpty().allSatisfy(ms -> assertThat(ms).isNotNegative());
    }

    @Test
    void mariaDbHasServerCpuAndRequestsPerOperationForTxlockTheFloorAndThePeers() {
        BenchConfig config = Configs.withTiming(Configs.quick(BackendKind.MARIADB, List.of("ADVISORY"), List.of("keys", "handoff")),
                new Timing(Duration.ofMillis(200), Duration.ofSeconds(1)));
        String md = MarkdownReport.markdown(run(config));

        List<List<String>> rows = rows(md, "mariadb");
        assertThat(rows).extracting(r -> r.get(1) + " " + r.get(2) + " " + r.get(3)).containsExactly(
                "keys ADVISORY txlock", "keys ADVISORY floor", "keys - " + ShedLockPeer.NAME, "keys - " + JdbcLockRegistryPeer.NAME,
                "handoff ADVISORY txlock", "handoff ADVISORY floor", "handoff - " + ShedLockPeer.NAME,
                "handoff - " + JdbcLockRegistryPeer.NAME);
        assertThat(rows).allSatisfy(r -> {
            assertThat(Double.parseDouble(r.get(5))).as(r.toString()).isPositive();
            assertThat(Double.parseDouble(r.get(6))).as(r.toString()).isPositive();
            assertThat(Double.parseDouble(r.get(7))).as(r.toString()).isEqualTo(Double.parseDouble(r.get(5))
                    + Double.parseDouble(r.get(6)), org.assertj.core.data.Offset.offset(0.11));
            assertThat(r.get(8)).as(r.toString()).endsWith(" requests");
            assertThat(Double.parseDouble(r.get(8).split(" ")[0])).as(r.toString()).isGreaterThanOrEqualTo(1);
            assertThat(r.get(9)).as("fsyncs: " + r).matches("\\d+\\.\\d\\d");
            assertThat(r.get(10)).as(r.toString()).matches(r.get(3).equals("floor") ? "-" : "\\d+\\.\\d\\dx, \\d+\\.\\d\\dx");
        });
    }

    @Test
    void workerJvmsCountAsTheBenchsCpu() {
        BenchConfig config = Configs.inProcesses(Configs.quick(BackendKind.H2, List.of("SELECT_FOR_UPDATE"), List.of("keys")), 2,
                false, Duration.ofSeconds(10));

        Measurement txlock = run(config).results().get(0).way("txlock");

        assertThat(txlock.cost().benchMissing()).isNull();
        assertThat(txlock.benchCpuPerOp()).isPositive();
    }

    /** The tables the README splices are those of a report without costs, byte for byte; the new one comes after. */
    @Test
    void theExistingTablesAreUnchangedAndTheCostTableComesLast() {
        BenchReport report = run(Configs.quick(BackendKind.H2, List.of("SELECT_FOR_UPDATE"), List.of("keys")));
        BenchReport withoutCosts = new BenchReport(report.command(), report.started(), report.seconds(), report.machine(),
                report.loadAtStart(), report.loadAtEnd(), report.backends(), report.results().stream().map(CostReportTest::withoutCost)
                        .toList(), report.errors(), report.warmupFailures());

        String md = MarkdownReport.markdown(report);
        String before = MarkdownReport.markdown(withoutCosts);

        assertThat(before).doesNotContain(CostTable.TITLE);
        assertThat(md).startsWith(before).contains(HEADING);
        assertThat(md.substring(before.length())).startsWith(HEADING);
    }

    private static ScenarioResult withoutCost(ScenarioResult r) {
        List<Measurement> ms = r.measurements().stream().map(m -> new Measurement(m.way(), m.describe(), m.ops(), m.seconds(),
                m.throughput(), m.latency(), m.acquire(), m.handoff(), m.verdict(), m.counts(), m.notes())).toList();
        return new ScenarioResult(r.backend(), r.strategy(), r.scenario(), r.settings(), ms, r.targets(), r.kill(), r.failures());
    }

    private static BenchReport run(BenchConfig config) {
        BenchReport report = BenchRun.run(config, "test", Progress.silent());
        assertThat(report.errors()).isEmpty();
        assertThat(report.passed()).isTrue();
        return report;
    }

    /** @return the cells of the cost table's rows of {@code backend} */
    private static List<List<String>> rows(String md, String backend) {
        assertThat(md).contains(HEADING);
        String table = md.substring(md.indexOf(HEADING));
        return table.lines().filter(l -> l.startsWith("| " + backend + " | "))
                .map(l -> Arrays.stream(l.substring(2, l.length() - 2).split(" \\| ")).map(String::strip).collect(Collectors.toList()))
                .map(List::copyOf).toList();
    }
}
