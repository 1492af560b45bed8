package io.txlock.bench;

import static io.txlock.bench.SvgChart.escape;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.format.DateTimeFormatter;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes the report folder: {@code report.html} (self-contained, charts as inline SVG), {@code results.json} and
 * {@code report.md} (the README's tables, {@link MarkdownReport}).
 */
final class HtmlReport {

    private HtmlReport() {
    }

    /**
     * @param report the run
     * @param folder where to write; created if missing
     * @return the HTML file
     * @throws IOException if the folder cannot be written
     */
    static Path write(BenchReport report, Path folder) throws IOException {
        Files.createDirectories(folder);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("passed", report.passed());
        json.put("checkerPassed", report.safe());
        json.put("report", report);
        json.put("txlockVsBestPeer", PeerComparison.lines(report.results()));
        Files.writeString(folder.resolve("results.json"), Json.write(json), StandardCharsets.UTF_8);
        Files.writeString(folder.resolve("report.md"), MarkdownReport.markdown(report), StandardCharsets.UTF_8);
        Path html = folder.resolve("report.html");
        Files.writeString(html, html(report), StandardCharsets.UTF_8);
        return html;
    }

    static String html(BenchReport report) {
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>txlock lock-bench</title><style>")
                .append("body{font-family:sans-serif;margin:2em;max-width:1100px;color:#1a202c}")
                .append("table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:13px}")
                .append("th,td{border:1px solid #cbd5e0;padding:3px 7px;text-align:left}td.n{text-align:right}")
                .append("th{background:#edf2f7}.ok{color:#276749}.bad{color:#c53030;font-weight:bold}")
                .append(".banner{padding:.6em 1em;border-radius:4px;margin:1em 0}.pass{background:#c6f6d5}.fail{background:#fed7d7}")
                .append("pre{background:#f7fafc;padding:.5em;overflow-x:auto}svg{display:block;margin:1em 0}")
                .append("</style></head><body>");
        h.append("<h1>txlock lock-bench</h1>");
        h.append("<p><code>").append(escape(report.command())).append("</code></p>");
        h.append("<p>").append(escape(DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(report.started().atOffset(ZoneOffset.UTC)
                .withNano(0)))).append(" UTC, ").append(String.format(java.util.Locale.ROOT, "%.0f s", report.seconds()))
                .append(" · ").append(escape(report.machine().describe())).append(" · load average ")
                .append(escape(report.loadAtStart())).append(" at start, ").append(escape(report.loadAtEnd())).append(" at end</p><ul>");
        for (BenchReport.BackendInfo b : report.backends()) {
            h.append("<li><b>").append(escape(b.name())).append("</b>: ").append(escape(b.describe())).append("</li>");
        }
        h.append("</ul>");
        verdict(h, report);
        peers(h, report);
        targets(h, report);
        costs(h, report);
        for (Scenario scenario : BenchRun.SCENARIOS) {
            List<ScenarioResult> results = report.results().stream().filter(r -> r.scenario().equals(scenario.id())).toList();
            if (!results.isEmpty()) {
                scenario(h, scenario, results);
            }
        }
        h.append("<p>Figures as JSON: <a href=\"results.json\">results.json</a>. Latency: a whole lock + unlock cycle")
                .append(" (orders: a whole submission, retries included). Handoff: from one holder's end to the start of the next")
                .append(" holder that was already waiting.</p></body></html>\n");
        return h.toString();
    }

    private static void verdict(StringBuilder h, BenchReport report) {
        boolean passed = report.passed();
        h.append("<div class=\"banner ").append(passed ? "pass" : "fail").append("\"><b>")
                .append(passed ? "Checker passed" : !report.safe() ? "CHECKER FAILED" : "NOT PASSED: some runs could not be done or proved nothing")
                .append("</b>: ");
        long sections = report.results().stream().flatMap(r -> r.measurements().stream())
                .filter(m -> m.way().equals("txlock") || m.way().equals("floor")).mapToLong(m -> m.verdict().sections()).sum();
        h.append(String.format(java.util.Locale.ROOT, "%,d", sections)).append(" critical sections of txlock and the raw floors checked");
        List<String> problems = new ArrayList<>(report.errors());
        problems.addAll(report.warmupFailures());
        for (ScenarioResult r : report.results()) {
            r.failures().forEach(f -> problems.add(r.backend() + " " + r.strategy() + " " + r.scenario() + ": " + f));
        }
        java.util.Set<String> peerViolations = new java.util.LinkedHashSet<>();
        for (ScenarioResult r : report.results()) {
            for (Measurement m : r.peers()) {
                m.notes().stream().filter(n -> n.startsWith(LockScenario.PEER_VIOLATION)).forEach(n -> peerViolations.add(r.backend()
                        + " " + r.scenario() + " " + m.way() + ": " + n.substring(LockScenario.PEER_VIOLATION.length())));
            }
        }
        if (problems.isEmpty()) {
            h.append("; no two holders of a name overlapped, no fencing token went backwards, no update was lost, no order")
                    .append(" was stored twice under txlock.");
        }
        h.append("</div>");
        if (!problems.isEmpty()) {
            h.append("<ul>");
            problems.forEach(p -> h.append("<li class=\"bad\">").append(escape(p)).append("</li>"));
            h.append("</ul>");
        }
        if (!peerViolations.isEmpty()) {
            h.append("<p>Found in peers (theirs, not txlock's):</p><ul>");
            peerViolations.forEach(p -> h.append("<li class=\"bad\">").append(escape(p)).append("</li>"));
            h.append("</ul>");
        }
        for (ScenarioResult r : report.results()) {
            if (r.kill() != null) {
                h.append("<p><b>kill -9</b> (").append(escape(r.backend() + " " + r.strategy() + " " + r.scenario())).append("): ")
                        .append(escape(r.kill().describe())).append("</p>");
            }
        }
    }

    private static void peers(StringBuilder h, BenchReport report) {
        List<PeerComparison.Line> lines = PeerComparison.lines(report.results());
        if (lines.isEmpty()) {
            return;
        }
        h.append("<h2>txlock / best peer</h2><p>Per backend, txlock's best lock strategy against the best of what a user would")
                .append(" pick instead, measured in the same run (throughput: higher is better; handoff p99: lower).</p>")
                .append("<table><tr><th>backend</th><th>scenario</th><th>figure</th><th>txlock strategy</th><th>txlock</th>")
                .append("<th>best peer</th><th>peer</th><th>txlock / peer</th></tr>");
        for (PeerComparison.Line l : lines) {
            h.append("<tr><td>").append(escape(l.backend())).append("</td><td>").append(escape(l.scenario())).append("</td><td>")
                    .append(escape(l.figure())).append("</td><td>").append(escape(l.strategy())).append("</td>");
            cell(h, l.formatTxlock());
            h.append("<td>").append(escape(l.peer())).append("</td>");
            cell(h, l.formatPeer());
            cell(h, l.formatRatio());
            h.append("</tr>");
        }
        h.append("</table>");
    }

    private static void targets(StringBuilder h, BenchReport report) {
        if (report.results().stream().allMatch(r -> r.targets().isEmpty())) {
            return;
        }
        h.append("<h2>Targets</h2><table><tr><th>backend</th><th>strategy</th><th>scenario</th><th>figure</th><th>value</th>")
                .append("<th>target</th><th></th></tr>");
        for (ScenarioResult r : report.results()) {
            for (Target q : r.targets()) {
                String verdict = q.missed() ? q.verdict().label().toUpperCase(java.util.Locale.ROOT) : q.verdict().label();
                h.append("<tr><td>").append(escape(r.backend())).append("</td><td>").append(escape(r.strategy())).append("</td><td>")
                        .append(escape(r.scenario())).append("</td><td>").append(escape(q.what())).append("</td><td class=\"n\">")
                        .append(escape(q.formatValue())).append("</td><td>").append(q.atLeast() ? "&ge; " : "&le; ")
                        .append(escape(q.formatTarget())).append("</td><td class=\"").append(q.missed() ? "bad" : "ok").append("\">")
                        .append(verdict).append("</td></tr>");
            }
        }
        h.append("</table>");
    }

    private static void costs(StringBuilder h, BenchReport report) {
        List<List<String>> rows = CostTable.rows(report.results());
        if (rows.isEmpty()) {
            return;
        }
        h.append("<h2>").append(CostTable.TITLE).append("</h2><p>CPU of the bench JVM (with its worker JVMs) and of the server's")
                .append(" processes, and what the server counted, over each measured window, per operation. ")
                .append(escape(CostTable.FSYNCS)).append("</p><table><tr>");
        CostTable.COLUMNS.forEach(c -> h.append("<th>").append(escape(c)).append("</th>"));
        h.append("</tr>");
        for (List<String> row : rows) {
            h.append("<tr>");
            for (int i = 0; i < row.size(); i++) {
                if (i < 4) {
                    h.append("<td>").append(escape(row.get(i))).append("</td>");
                } else {
                    cell(h, row.get(i));
                }
            }
            h.append("</tr>");
        }
        h.append("</table>");
        List<String> notes = CostTable.notes(report.results());
        if (!notes.isEmpty()) {
            h.append("<p>Why a figure is \"-\", and what a count leaves out:</p><ul>");
            notes.forEach(why -> h.append("<li>").append(escape(why)).append("</li>"));
            h.append("</ul>");
        }
    }

    private static void scenario(StringBuilder h, Scenario scenario, List<ScenarioResult> results) {
        h.append("<h2>").append(escape(scenario.id())).append(": ").append(escape(scenario.title())).append("</h2>");
        h.append("<p>").append(escape(results.get(0).settings())).append("</p><ul>");
        java.util.Set<String> described = new java.util.LinkedHashSet<>();
        for (ScenarioResult r : results) {
            for (Measurement m : r.measurements()) {
                described.add(m.way() + ": " + m.describe());
            }
        }
        described.forEach(d -> h.append("<li>").append(escape(d)).append("</li>"));
        h.append("</ul>");
        List<SvgChart.Group> throughput = new ArrayList<>();
        List<SvgChart.Group> latency = new ArrayList<>();
        List<SvgChart.Group> handoff = new ArrayList<>();
        for (ScenarioResult r : results) {
            String label = r.backend() + " " + r.strategy();
            throughput.add(new SvgChart.Group(label, r.measurements().stream().map(m -> new SvgChart.Bar(m.way(), m.throughput())).toList()));
            List<SvgChart.Bar> lat = new ArrayList<>();
            List<SvgChart.Bar> hand = new ArrayList<>();
            for (Measurement m : r.measurements()) {
                lat.add(new SvgChart.Bar(m.way() + " p50", m.latency().p50()));
                lat.add(new SvgChart.Bar(m.way() + " p99", m.latency().p99()));
                if (m.handoff().count() > 0) {
                    hand.add(new SvgChart.Bar(m.way() + " p50", m.handoff().p50()));
                    hand.add(new SvgChart.Bar(m.way() + " p99", m.handoff().p99()));
                }
            }
            latency.add(new SvgChart.Group(label, lat));
            if (!hand.isEmpty()) {
                handoff.add(new SvgChart.Group(label, hand));
            }
        }
        h.append(SvgChart.bars("Throughput (operations per second)", throughput, false, Format::rate));
        h.append(SvgChart.bars(scenario.id().equals("orders") ? "Submission latency" : "Lock + unlock cycle latency", latency, true,
                Format::latency));
        if (scenario.id().equals("handoff") && !handoff.isEmpty()) {
            h.append(SvgChart.bars("Handoff latency", handoff, true, Format::latency));
        }
        h.append("<table><tr><th>backend</th><th>strategy</th><th>way</th><th>ops/s</th><th>p50</th><th>p90</th><th>p99</th>")
                .append("<th>p99.9</th><th>max</th><th>acquire p99</th><th>handoff p50</th><th>handoff p99</th><th>grants max/min</th><th>check</th><th>counts</th></tr>");
        java.util.Set<Measurement> shown = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (ScenarioResult r : results) {
            for (Measurement m : r.measurements()) {
                if (!shown.add(m)) {
                    continue;
                }
                h.append("<tr><td>").append(escape(r.backend())).append("</td><td>")
                        .append(escape(m.way().equals("txlock") ? r.strategy() : "-")).append("</td><td>")
                        .append(escape(m.way())).append("</td>");
                cell(h, Format.rate(m.throughput()));
                for (double v : new double[] {m.latency().p50(), m.latency().p90(), m.latency().p99(), m.latency().p999(),
                        m.latency().max(), m.acquire().p99(), m.handoff().p50(), m.handoff().p99()}) {
                    cell(h, Format.latency(v));
                }
                cell(h, Format.fairness(m));
                h.append("<td class=\"").append(m.verdict().passed() ? "ok" : "bad").append("\">").append(escape(m.verdict().summary()))
                        .append("</td><td>").append(escape(countsOf(m))).append("</td></tr>");
            }
        }
        h.append("</table>");
        shown.clear();
        for (ScenarioResult r : results) {
            for (Measurement m : r.measurements()) {
                if (!shown.add(m)) {
                    continue;
                }
                for (String note : m.notes()) {
                    h.append("<p>").append(escape(r.backend() + " " + r.strategy() + " " + m.way() + ": " + note)).append("</p>");
                }
            }
        }
    }

    private static String countsOf(Measurement m) {
        List<String> parts = new ArrayList<>();
        m.counts().forEach((k, v) -> parts.add(k + " " + v));
        return String.join(", ", parts);
    }

    private static void cell(StringBuilder h, String value) {
        h.append("<td class=\"n\">").append(escape(value)).append("</td>");
    }
}
