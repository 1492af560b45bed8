package io.txlock.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.stream.Collectors;

/** The suite's Markdown table (one row per backend and strategy) and a run's details. */
final class Report {

    private Report() {
    }

    static String table(List<ChaosRun.Result> results) {
        Map<String, List<ChaosRun.Result>> rows = new LinkedHashMap<>();
        results.forEach(r -> rows.computeIfAbsent(r.backend() + " | " + r.strategy(), k -> new ArrayList<>()).add(r));
        StringBuilder out = new StringBuilder();
        out.append("| backend | strategy | runs | operations (grants) | writes accepted / refused | faults | violations | excused |"
                + " longest stuck after kill -9 / SIGSTOP | longest recovery after a server fault |\n");
        out.append("|---|---|---|---|---|---|---|---|---|---|\n");
        rows.forEach((key, runs) -> {
            int grants = 0;
            int accepted = 0;
            int refused = 0;
            int violations = 0;
            int excused = 0;
            Duration kill = Duration.ZERO;
            Duration pause = Duration.ZERO;
            Duration recovery = Duration.ZERO;
            Map<FaultKind, Integer> faults = new EnumMap<>(FaultKind.class);
            for (ChaosRun.Result r : runs) {
                Checker.Verdict v = r.verdict();
                grants += v.grants();
                accepted += v.accepted();
                refused += v.refused();
                violations += v.violations().size();
                excused += v.excused().size();
                kill = max(kill, v.longestStuckAfterKill());
                pause = max(pause, v.longestStuckAfterPause());
                recovery = max(recovery, v.longestRecovery());
                v.faults().forEach((k, n) -> faults.merge(k, n, Integer::sum));
            }
            StringJoiner f = new StringJoiner(", ");
            faults.forEach((k, n) -> f.add(n + " " + k.label()));
            out.append("| ").append(key).append(" | ").append(runs.size()).append(" | ").append(String.format("%,d", grants))
                    .append(" | ").append(String.format("%,d / %,d", accepted, refused)).append(" | ").append(f)
                    .append(" | ").append(violations).append(" | ").append(excused).append(" | ")
                    .append(seconds(kill)).append(" / ").append(seconds(pause)).append(" | ").append(seconds(recovery))
                    .append(" |\n");
        });
        return out.toString();
    }

    static String details(ChaosRun.Result r) {
        Checker.Verdict v = r.verdict();
        StringBuilder out = new StringBuilder();
        out.append(r.backend()).append(' ').append(r.strategy()).append(": ").append(v.violations().size())
                .append(" violations, ").append(v.grants()).append(" grants, ").append(v.accepted()).append(" writes accepted, ")
                .append(v.refused()).append(" refused, ").append(v.lost()).append(" onLost, faults ").append(v.faults())
                .append(", run took ").append(seconds(r.took())).append('\n');
        out.append("exceptions: ").append(v.exceptions().entrySet().stream().map(e -> e.getKey() + " x" + e.getValue())
                .collect(Collectors.joining(", "))).append('\n');
        v.violations().forEach(x -> out.append("VIOLATION ").append(x).append('\n'));
        v.excused().forEach(x -> out.append("excused ").append(x).append('\n'));
        out.append("histories: ").append(r.dir()).append('\n');
        return out.toString();
    }

    private static String seconds(Duration d) {
        return String.format("%.1f s", d.toMillis() / 1000.0);
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
