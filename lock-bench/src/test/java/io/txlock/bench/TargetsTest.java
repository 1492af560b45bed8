package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ratios and counts against docs/design.md's targets, and how the table and results.json show them. */
class TargetsTest {

    private static Latency p99(double micros) {
        return new Latency(100, micros / 2, micros / 2, micros, micros, micros, micros);
    }

    private static Measurement handoff(String way, Latency handoff) {
        return new Measurement(way, "", 1000, 1, 1000, Latency.none(), Latency.none(), handoff, Checker.Verdict.empty(),
                new LinkedHashMap<>(), List.of());
    }

    private static Measurement throughput(String way, long ops, Map<String, Long> counts) {
        return new Measurement(way, "", ops, 2, ops / 2.0, Latency.none(), Latency.none(), Latency.none(), Checker.Verdict.empty(),
                new LinkedHashMap<>(counts), List.of());
    }

    private static Target handoffRatio(Latency txlock, Latency floor) {
        return new HandoffScenario().ratio(handoff("txlock", txlock), handoff("floor", floor), null);
    }

    @Test
    void handoffDividesTxlocksP99ByTheFloorsAndMustStayAtMostTwice() {
        Target slow = handoffRatio(p99(300), p99(100));
        Target atTheLimit = handoffRatio(p99(200), p99(100));
        Target fast = handoffRatio(p99(150), p99(100));

        assertThat(slow.value()).isEqualTo(3.0);
        assertThat(slow.verdict()).isEqualTo(Target.Verdict.MISSED);
        assertThat(slow.describe()).isEqualTo("3.00x (target <= 2.0x: MISSED)");
        assertThat(atTheLimit.verdict()).isEqualTo(Target.Verdict.MET);
        assertThat(fast.value()).isEqualTo(1.5);
        assertThat(fast.verdict()).isEqualTo(Target.Verdict.MET);
    }

    @Test
    void aHandoffThatWasNotMeasuredOnEitherSideIsAMissNotAPass() {
        Target noFloor = handoffRatio(p99(150), Latency.none());
        Target noTxlock = handoffRatio(Latency.none(), p99(100));

        for (Target t : List.of(noFloor, noTxlock)) {
            assertThat(t.value()).isNaN();
            assertThat(t.verdict()).isEqualTo(Target.Verdict.NOT_MEASURED);
            assertThat(t.missed()).isTrue();
            assertThat(t.describe()).isEqualTo("not measured (target <= 2.0x: MISSED)");
        }
    }

    @Test
    void ordersDivideThroughputsAndTheTargetAppliesToMariaDbWithSixtyFourClients() {
        Measurement txlock = throughput("txlock", 3000, Map.of());
        Measurement seed = throughput("seed", 1000, Map.of());
        Measurement slowTxlock = throughput("txlock", 2000, Map.of());

        Target mariadb = OrdersScenario.ratio(BackendKind.MARIADB, 64, txlock, seed);
        assertThat(mariadb.value()).isEqualTo(3.0);
        assertThat(mariadb.verdict()).isEqualTo(Target.Verdict.MET);
        assertThat(OrdersScenario.ratio(BackendKind.MARIADB, 64, slowTxlock, seed).verdict()).isEqualTo(Target.Verdict.MISSED);
        assertThat(OrdersScenario.ratio(BackendKind.MYSQL, 64, slowTxlock, seed).verdict()).isEqualTo(Target.Verdict.MISSED);
        assertThat(OrdersScenario.ratio(BackendKind.MARIADB, 100, slowTxlock, seed).verdict()).isEqualTo(Target.Verdict.MISSED);
        for (BackendKind elsewhere : List.of(BackendKind.POSTGRESQL, BackendKind.H2, BackendKind.REDIS, BackendKind.ZOOKEEPER)) {
            assertThat(OrdersScenario.ratio(elsewhere, 64, slowTxlock, seed).verdict()).as(elsewhere.cliName())
                    .isEqualTo(Target.Verdict.INFO);
        }
        Target fewClients = OrdersScenario.ratio(BackendKind.MARIADB, 63, slowTxlock, seed);
        assertThat(fewClients.verdict()).isEqualTo(Target.Verdict.INFO);
        assertThat(fewClients.describe()).isEqualTo("2.00x (target >= 3.0x: info)");
    }

    @Test
    void aSeedThatStoredNothingGivesAnInfiniteRatioAndNothingOnEitherSideIsNotMeasured() {
        Target infinite = OrdersScenario.ratio(BackendKind.MARIADB, 64, throughput("txlock", 10, Map.of()), throughput("seed", 0, Map.of()));
        Target nothing = OrdersScenario.ratio(BackendKind.MARIADB, 64, throughput("txlock", 0, Map.of()), throughput("seed", 0, Map.of()));

        assertThat(infinite.value()).isInfinite();
        assertThat(infinite.verdict()).isEqualTo(Target.Verdict.MET);
        assertThat(infinite.describe()).startsWith("infinite");
        assertThat(nothing.verdict()).isEqualTo(Target.Verdict.NOT_MEASURED);
    }

    @Test
    void aDeadlockUnderTxlockMissesTheTargetOnEveryDatabase() {
        Target none = OrdersScenario.deadlocks(throughput("txlock", 100, Map.of("deadlocks", 0L)));
        Target three = OrdersScenario.deadlocks(throughput("txlock", 100, Map.of("deadlocks", 3L)));

        assertThat(none.verdict()).isEqualTo(Target.Verdict.MET);
        assertThat(three.verdict()).isEqualTo(Target.Verdict.MISSED);
        assertThat(three.describe()).isEqualTo("3 (target <= 0: MISSED)");
    }

    @Test
    void resultsJsonGivesEachTargetItsVerdictAndNeverHidesAnInfiniteOrMissingRatioAsNull() {
        String infinite = Json.write(Target.ratio("txlock/seed throughput", Double.POSITIVE_INFINITY, 3, true, true));
        String notMeasured = Json.write(Target.ratio("txlock/floor handoff p99", Double.NaN, 2, false, true));
        String missed = Json.write(Target.atMost("txlock deadlocks", 3, 0));

        assertThat(infinite).contains("\"value\": \"Infinity\"").contains("\"met\": true").contains("\"verdict\": \"met\"");
        assertThat(notMeasured).contains("\"value\": \"NaN\"").contains("\"met\": false").contains("\"verdict\": \"not measured\"");
        assertThat(missed).contains("\"value\": 3.0").contains("\"kind\": \"COUNT\"").contains("\"verdict\": \"missed\"");
        assertThat(infinite + notMeasured + missed).doesNotContain("null");
    }

    @Test
    void deadlocksUnderTxlockShowInTheTargetsOfTheTableAndTheJsonWithoutFailingTheChecker(@TempDir Path dir) throws Exception {
        Measurement txlock = throughput("txlock", 3000, Map.of("deadlocks", 2L));
        Measurement seed = throughput("seed", 500, Map.of());
        ScenarioResult orders = new ScenarioResult("mariadb", "SELECT_FOR_UPDATE", "orders", "64 clients", List.of(txlock, seed),
                List.of(OrdersScenario.ratio(BackendKind.MARIADB, 64, txlock, seed), OrdersScenario.deadlocks(txlock)), null, List.of());
        BenchReport report = new BenchReport("test", Instant.now(), 1, MachineInfo.current(), "0 0 0", "0 0 0", List.of(), List.of(orders),
                List.of(), List.of());
        ByteArrayOutputStream table = new ByteArrayOutputStream();

        ConsoleTable.print(report, new PrintStream(table, true, StandardCharsets.UTF_8));
        HtmlReport.write(report, dir);

        assertThat(report.passed()).isTrue();
        assertThat(table.toString(StandardCharsets.UTF_8)).contains("txlock/seed throughput").contains("6.00x (target >= 3.0x: met)")
                .contains("txlock deadlocks").contains("2 (target <= 0: MISSED)").contains("CHECKER PASSED");
        assertThat(Files.readString(dir.resolve("results.json"))).contains("\"what\": \"txlock deadlocks\"")
                .contains("\"verdict\": \"missed\"");
        assertThat(Files.readString(dir.resolve("report.html"))).contains("txlock deadlocks").contains("MISSED");
    }
}
