package io.txlock.bench;

import java.time.format.DateTimeFormatter;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The run as the README's benchmark tables ({@code report.md}): txlock's best strategy against the best peer per
 * backend and scenario, then every strategy against its yardstick and the best peer. The README's tables are this
 * file's, pasted, so a reader can reproduce them with the command on their first line.
 */
final class MarkdownReport {

    private static final String STRATEGY_HEADER = "| backend | strategy | orders ops/s: txlock / seed / best peer (txlock / best peer)"
            + " | counter ops/s, lost | keys ops/s: txlock / floor / best peer (txlock / floor, txlock / best peer)"
            + " | handoff p99: txlock / floor / best peer (txlock / floor, txlock / best peer) | checker |\n"
            + "|---|---|---|---|---|---|---|\n";

    private MarkdownReport() {
    }

    static String markdown(BenchReport report) {
        StringBuilder md = new StringBuilder();
        md.append("```\n").append(report.command()).append("\n```\n\n");
        md.append(DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(report.started().atOffset(ZoneOffset.UTC).withNano(0)))
                .append(" UTC, ").append(String.format(Locale.ROOT, "%.0f s", report.seconds())).append(", ")
                .append(report.machine().describe()).append(", load average ").append(report.loadAtStart())
                .append(" at the start, ").append(report.loadAtEnd()).append(" at the end. ")
                .append(report.safe() ? "Checker passed on every run." : "CHECKER FAILED.").append("\n\n");
        bestPeers(md, report.results());
        md.append('\n');
        strategies(md, report.results());
        costs(md, report.results());
        return md.toString();
    }

    /** The cost per operation, after the README's tables, under a heading of its own. */
    private static void costs(StringBuilder md, List<ScenarioResult> results) {
        List<List<String>> rows = CostTable.rows(results);
        if (rows.isEmpty()) {
            return;
        }
        md.append("\n### ").append(CostTable.TITLE).append("\n\n")
                .append("CPU of the bench JVM (with its worker JVMs) and of the server's processes, and what the server counted,")
                .append(" over each measured window, per operation (keys: lock + unlock cycles; handoff: grants; counter: increments). ")
                .append(CostTable.FSYNCS).append("\n\n")
                .append("| ").append(String.join(" | ", CostTable.COLUMNS)).append(" |\n|")
                .append("---|".repeat(CostTable.COLUMNS.size())).append('\n');
        for (List<String> row : rows) {
            md.append("| ").append(String.join(" | ", row)).append(" |\n");
        }
        List<String> notes = CostTable.notes(results);
        if (!notes.isEmpty()) {
            md.append("\nWhy a figure is \"-\", and what a count leaves out:\n\n");
            notes.forEach(why -> md.append("- ").append(why).append('\n'));
        }
    }

    private static void bestPeers(StringBuilder md, List<ScenarioResult> results) {
        md.append("| backend | scenario | txlock (best strategy) | best peer | txlock / best peer |\n|---|---|---|---|---|\n");
        for (PeerComparison.Line line : PeerComparison.lines(results)) {
            md.append("| ").append(line.backend()).append(" | ").append(line.scenario())
                    .append(line.handoff() ? " p99" : " ops/s").append(" | ").append(line.formatTxlock()).append(" (")
                    .append(line.strategy()).append(") | ").append(line.formatPeer()).append(" (").append(line.peer())
                    .append(") | ").append(line.formatRatio()).append(" |\n");
        }
    }

    private static void strategies(StringBuilder md, List<ScenarioResult> results) {
        Map<String, Map<String, ScenarioResult>> rows = new LinkedHashMap<>();
        for (ScenarioResult r : results) {
            rows.computeIfAbsent(r.backend() + " | " + r.strategy(), k -> new LinkedHashMap<>()).put(r.scenario(), r);
        }
        md.append(STRATEGY_HEADER);
        for (Map.Entry<String, Map<String, ScenarioResult>> row : rows.entrySet()) {
            Map<String, ScenarioResult> byScenario = row.getValue();
            boolean passed = byScenario.values().stream().allMatch(ScenarioResult::passed);
            md.append("| ").append(row.getKey()).append(" | ").append(orders(byScenario.get("orders"))).append(" | ")
                    .append(counter(byScenario.get("counter"))).append(" | ").append(keys(byScenario.get("keys"))).append(" | ")
                    .append(handoff(byScenario.get("handoff"))).append(" | ").append(passed ? "passed" : "FAILED").append(" |\n");
        }
    }

    private static String orders(ScenarioResult r) {
        if (r == null) {
            return "-";
        }
        Measurement seed = r.way("seed");
        Optional<Measurement> peer = PeerComparison.best(false, r.peers());
        return rate(r.way("txlock")) + " / " + (seed == null ? "-" : rate(seed)) + " / "
                + peer.map(p -> p.way() + " " + rate(p) + " (" + ratio(false, r.way("txlock"), p) + ")").orElse("- (-)");
    }

    private static String counter(ScenarioResult r) {
        if (r == null) {
            return "-";
        }
        Measurement txlock = r.way("txlock");
        return rate(txlock) + ", " + txlock.count("lost updates");
    }

    private static String keys(ScenarioResult r) {
        return r == null ? "-" : contended(r, false);
    }

    private static String handoff(ScenarioResult r) {
        return r == null ? "-" : contended(r, true);
    }

    private static String contended(ScenarioResult r, boolean handoff) {
        Measurement txlock = r.way("txlock");
        Measurement floor = r.way("floor");
        Optional<Measurement> peer = PeerComparison.best(handoff, r.peers());
        List<String> ratios = new ArrayList<>();
        ratios.add(floor == null ? "-" : ratio(handoff, txlock, floor));
        ratios.add(peer.map(p -> ratio(handoff, txlock, p)).orElse("-"));
        if (!handoff) {
            r.peers().stream().filter(p -> p.way().equals(ShedLockPeer.NAME) && peer.filter(b -> b == p).isEmpty())
                    .findFirst().ifPresent(shedLock -> ratios.add("ShedLock " + ratio(false, txlock, shedLock)));
        }
        return figure(handoff, txlock) + " / " + (floor == null ? "-" : figure(handoff, floor)) + " / "
                + peer.map(p -> p.way() + " " + figure(handoff, p)).orElse("-") + " (" + String.join(", ", ratios) + ")";
    }

    private static String figure(boolean handoff, Measurement m) {
        return handoff ? Format.latency(m.handoff().p99()) : rate(m);
    }

    private static String rate(Measurement m) {
        return Format.rate(m.throughput());
    }

    private static String ratio(boolean handoff, Measurement txlock, Measurement other) {
        double ratio = PeerComparison.ratio(handoff, txlock, other);
        if (Double.isNaN(ratio)) {
            return "-";
        }
        return Double.isInfinite(ratio) ? "inf" : String.format(Locale.ROOT, "%.2fx", ratio);
    }
}
