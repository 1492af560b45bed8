package io.txlock.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The report's "Cost per operation" table: per backend, scenario and way (txlock per strategy, the floor, the
 * peers), the CPU of the bench and of the server and the server's count per operation of the measured window,
 * and each way's CPU against the floor's. A way measured once for several strategies (a shared floor, the peers)
 * has one row.
 */
final class CostTable {

    /** The table's title, a heading of report.md. */
    static final String TITLE = "Cost per operation";

    /** The columns, in order. */
    static final List<String> COLUMNS = List.of("backend", "scenario", "strategy", "way", "ops/s", "bench JVM CPU µs/op",
            "server CPU µs/op", "bench + server CPU µs/op", "server count/op", "fsyncs/op", "CPU / floor: bench, server");

    /** What the fsyncs column counts, for the table's description. */
    static final String FSYNCS = "fsyncs: the server's waits for its writes to reach the disk (MariaDB and MySQL:"
            + " Innodb_data_fsyncs, InnoDB's redo log and data files; PostgreSQL: pg_stat_wal.wal_sync, its WAL, the WAL"
            + " writer's included, reported up to a second late); \"-\" where the server counts none.";

    private CostTable() {
    }

    /**
     * @param results a run's results
     * @return one row of cells per way whose cost was measured, in {@link #COLUMNS}' order
     */
    static List<List<String>> rows(List<ScenarioResult> results) {
        List<List<String>> rows = new ArrayList<>();
        Set<Measurement> shown = Collections.newSetFromMap(new IdentityHashMap<>());
        for (ScenarioResult r : results) {
            Measurement floor = r.way("floor");
            for (Measurement m : r.measurements()) {
                if (m.cost().benchCpuNanos() < 0 && m.cost().serverCpuNanos() < 0 && m.cost().requests() < 0 || !shown.add(m)) {
                    continue;
                }
                boolean own = m.way().equals("txlock") || m.way().equals("floor") || m.way().equals(LockScenario.SAFE_FLOOR);
                rows.add(List.of(r.backend(), r.scenario(), own ? r.strategy() : "-", m.way(), Format.rate(m.throughput()),
                        micros(m.benchCpuPerOp()), micros(m.serverCpuPerOp()), micros(m.benchCpuPerOp() + m.serverCpuPerOp()),
                        count(m), fsyncs(m), m == floor || floor == null ? "-"
                                : ratio(m.benchCpuPerOp(), floor.benchCpuPerOp()) + ", " + ratio(m.serverCpuPerOp(), floor.serverCpuPerOp())));
            }
        }
        return rows;
    }

    /**
     * @param results a run's results
     * @return why figures of the table are "-" and what a count leaves out, per backend, each once
     */
    static List<String> notes(List<ScenarioResult> results) {
        Set<String> reasons = new LinkedHashSet<>();
        for (ScenarioResult r : results) {
            for (Measurement m : r.measurements()) {
                Cost c = m.cost();
                if (c.benchCpuNanos() < 0 && c.serverCpuNanos() < 0 && c.requests() < 0) {
                    continue;
                }
                for (String why : new String[] {c.benchMissing(), c.serverMissing(), c.requestsMissing(), c.countNote()}) {
                    if (why != null) {
                        reasons.add(r.backend() + ": " + why);
                    }
                }
            }
        }
        return List.copyOf(reasons);
    }

    private static String micros(double perOp) {
        return Double.isNaN(perOp) ? "-" : String.format(Locale.ROOT, "%.1f", perOp);
    }

    private static String count(Measurement m) {
        double perOp = m.requestsPerOp();
        return Double.isNaN(perOp) ? "-" : String.format(Locale.ROOT, "%.2f %s", perOp, m.cost().requestUnit());
    }

    private static String fsyncs(Measurement m) {
        double perOp = m.fsyncsPerOp();
        return Double.isNaN(perOp) ? "-" : String.format(Locale.ROOT, "%.2f", perOp);
    }

    private static String ratio(double way, double floor) {
        return Double.isNaN(way) || Double.isNaN(floor) || floor <= 0 ? "-" : String.format(Locale.ROOT, "%.2fx", way / floor);
    }
}
