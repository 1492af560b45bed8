package io.txlock.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** The terminal output: one table of every figure, then the targets, the kills and the verdict. */
final class ConsoleTable {

    private static final String[] HEADER = {"backend", "strategy", "scenario", "way", "ops/s", "p50", "p99", "p99.9",
            "handoff p50", "handoff p99", "grants max/min", "check", "counts"};

    private ConsoleTable() {
    }

    /**
     * @param r a result
     * @return one line for the progress log
     */
    static String oneLine(ScenarioResult r) {
        StringBuilder b = new StringBuilder("  ").append(r.backend()).append(' ').append(r.strategy()).append(" · ")
                .append(r.scenario()).append(':');
        for (Measurement m : r.measurements()) {
            b.append(' ').append(m.way()).append(' ').append(Format.rate(m.throughput())).append(" ops/s");
            b.append(" [").append(m.verdict().summary()).append(']');
        }
        for (Target t : r.targets()) {
            b.append("; ").append(t.what()).append(' ').append(t.describe());
        }
        return b.toString();
    }

    /**
     * @param report the run
     * @param out where to print
     */
    static void print(BenchReport report, PrintStream out) {
        out.println();
        out.println("txlock lock-bench — " + report.machine().describe());
        out.println("load average " + report.loadAtStart() + " at start, " + report.loadAtEnd() + " at end; "
                + String.format(java.util.Locale.ROOT, "%.0f s", report.seconds()));
        for (BenchReport.BackendInfo b : report.backends()) {
            out.println(b.name() + ": " + b.describe());
        }
        out.println();
        List<String[]> rows = new ArrayList<>();
        rows.add(HEADER);
        java.util.Set<Measurement> shown = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (ScenarioResult r : report.results()) {
            for (Measurement m : r.measurements()) {
                if (!shown.add(m)) {
                    continue;
                }
                rows.add(new String[] {r.backend(), m.way().equals("txlock") ? r.strategy() : "-", r.scenario(), m.way(), Format.rate(m.throughput()),
                        Format.latency(m.latency().p50()), Format.latency(m.latency().p99()), Format.latency(m.latency().p999()),
                        Format.latency(m.handoff().p50()), Format.latency(m.handoff().p99()), Format.fairness(m), m.verdict().summary(),
                        Format.counts(m)});
            }
        }
        printTable(rows, out);
        out.println();
        out.println("latency: a whole lock + unlock cycle (orders: a whole submission); handoff: one holder's end to the next"
                + " waiting holder's start; grants max/min: the most grants of one worker over the fewest of another in the"
                + " measured window (1 is fair; in handoff every worker is a node of its own)");
        List<ScenarioResult> withTargets = report.results().stream().filter(r -> !r.targets().isEmpty()).toList();
        if (!withTargets.isEmpty()) {
            out.println();
            out.println("targets (docs/design.md)");
            for (ScenarioResult r : withTargets) {
                for (Target t : r.targets()) {
                    out.println("  " + pad(r.backend() + " " + r.strategy() + " " + r.scenario(), 40) + pad(t.what(), 28) + t.describe());
                }
            }
        }
        List<PeerComparison.Line> peers = PeerComparison.lines(report.results());
        if (!peers.isEmpty()) {
            out.println();
            out.println("txlock / best peer (best lock strategy against the best peer, same run; throughput: higher is better,"
                    + " handoff p99: lower)");
            for (PeerComparison.Line l : peers) {
                out.println("  " + pad(l.backend() + " " + l.scenario(), 22) + pad(l.strategy(), 20) + pad(l.formatTxlock(), 10)
                        + "/ " + pad(l.peer(), 18) + pad(l.formatPeer(), 10) + l.formatRatio());
            }
        }
        for (ScenarioResult r : report.results()) {
            if (r.kill() != null) {
                out.println();
                out.println("kill -9 (" + r.backend() + " " + r.strategy() + " " + r.scenario() + "): " + r.kill().describe());
            }
        }
        out.println();
        for (String e : report.errors()) {
            out.println("ERROR " + e);
        }
        for (String f : report.warmupFailures()) {
            out.println("FAILED " + f);
        }
        java.util.Set<Measurement> noted = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (ScenarioResult r : report.results()) {
            for (Measurement m : r.measurements()) {
                if (noted.add(m)) {
                    m.notes().stream().filter(n -> n.startsWith("error:")).limit(3).forEach(n -> out.println("NOTE " + r.backend()
                            + " " + (m.way().equals("txlock") ? r.strategy() + " " : "") + r.scenario() + " " + m.way() + ": " + n));
                }
            }
        }
        noted.clear();
        for (ScenarioResult r : report.results()) {
            for (Measurement m : r.peers()) {
                if (noted.add(m)) {
                    m.notes().stream().filter(n -> n.startsWith(LockScenario.PEER_VIOLATION)).forEach(n -> out.println("PEER VIOLATION "
                            + r.backend() + " " + r.scenario() + " " + m.way() + ": " + n.substring(LockScenario.PEER_VIOLATION.length())
                            + " (the peer's, not txlock's)"));
                }
            }
        }
        for (ScenarioResult r : report.results()) {
            for (String f : r.failures()) {
                out.println("FAILED " + r.backend() + " " + r.strategy() + " " + r.scenario() + ": " + f);
            }
        }
        for (ScenarioResult r : report.results()) {
            Measurement seed = r.way("seed");
            if (seed != null && !seed.verdict().passed() && r.strategy().equals(firstStrategy(report, r.backend()))) {
                out.println("seed (" + r.backend() + "): " + seed.notes().get(seed.notes().size() - 1) + " (the seed's flaw, not"
                        + " a txlock failure)");
            }
        }
        long sections = report.results().stream().flatMap(r -> r.measurements().stream()).filter(m -> m.way().equals("txlock") || m.way().equals("floor"))
                .mapToLong(m -> m.verdict().sections()).sum();
        if (!report.safe()) {
            out.println("CHECKER FAILED: see above");
        } else if (!report.errors().isEmpty()) {
            out.println("NOT PASSED: the checker found no violation in what ran, but " + report.errors().size()
                    + (report.errors().size() == 1 ? " run" : " runs") + " could not be done or proved nothing: see ERROR above");
        } else {
            out.println("CHECKER PASSED: " + String.format(java.util.Locale.ROOT, "%,d", sections)
                    + " critical sections, no overlapping holders, no token went backwards");
        }
    }

    private static String firstStrategy(BenchReport report, String backend) {
        return report.results().stream().filter(r -> r.backend().equals(backend) && r.way("seed") != null)
                .map(ScenarioResult::strategy).findFirst().orElse("");
    }

    private static void printTable(List<String[]> rows, PrintStream out) {
        int[] widths = new int[HEADER.length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (int r = 0; r < rows.size(); r++) {
            StringBuilder line = new StringBuilder();
            String[] row = rows.get(r);
            for (int i = 0; i < row.length; i++) {
                boolean numeric = i >= 4 && i <= 9;
                line.append(numeric ? padLeft(row[i], widths[i]) : row[i] + " ".repeat(widths[i] - row[i].length()));
                if (i < row.length - 1) {
                    line.append("  ");
                }
            }
            out.println(line.toString().stripTrailing());
            if (r == 0) {
                int total = 0;
                for (int w : widths) {
                    total += w + 2;
                }
                out.println("-".repeat(Math.max(0, total - 2)));
            }
        }
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s + " " : s + " ".repeat(width - s.length());
    }

    private static String padLeft(String s, int width) {
        return s.length() >= width ? s : " ".repeat(width - s.length()) + s;
    }
}
