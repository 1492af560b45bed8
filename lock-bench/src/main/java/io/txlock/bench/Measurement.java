package io.txlock.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The figures of one way of doing a scenario (txlock, the raw floor, the seed's approach) in one run.
 *
 * @param way "txlock", "floor", "safe floor" or "seed"
 * @param describe what that way does, e.g. the floor's SQL
 * @param ops operations finished in the measured window
 * @param seconds the measured window
 * @param throughput ops per second
 * @param latency the main latency: a whole lock/unlock cycle, or a whole order submission
 * @param acquire time from asking for the lock to getting it
 * @param handoff contended handoffs: from one holder's end to the next waiting holder's start
 * @param verdict the checker's findings on every critical section of the run
 * @param counts other counts: timeouts, errors, lost updates, duplicates, deadlocks…
 * @param notes remarks for the report
 * @param cost what the measured window cost in CPU and server requests
 */
public record Measurement(String way, String describe, long ops, double seconds, double throughput, Latency latency,
        Latency acquire, Latency handoff, Checker.Verdict verdict, Map<String, Long> counts, List<String> notes, Cost cost)
        implements Json.Derived {

    /** Figures whose cost was not measured. */
    Measurement(String way, String describe, long ops, double seconds, double throughput, Latency latency,
            Latency acquire, Latency handoff, Checker.Verdict verdict, Map<String, Long> counts, List<String> notes) {
        this(way, describe, ops, seconds, throughput, latency, acquire, handoff, verdict, counts, notes, Cost.none("not measured"));
    }

    /** The count of the most grants one worker got in the measured window. */
    static final String MOST_GRANTS = "grants per worker max";
    /** The count of the fewest grants one worker got in the measured window (0 if one was never granted). */
    static final String FEWEST_GRANTS = "grants per worker min";

    /**
     * Measures a run of lock workers from its critical sections.
     *
     * @param way the way's name
     * @param describe what it does
     * @param outcome the run
     * @return the figures, with the checker's verdict on all sections and the run's timeouts and errors counted
     */
    public static Measurement ofLocks(String way, String describe, ClusterOutcome outcome) {
        return ofLocks(way, describe, outcome, (int) outcome.sections().stream().mapToInt(CriticalSection::worker).distinct().count());
    }

    /**
     * {@link #ofLocks(String, String, ClusterOutcome)}, with the grants per worker counted over all {@code workers},
     * those never granted in the measured window included.
     *
     * @param way the way's name
     * @param describe what it does
     * @param outcome the run
     * @param workers how many workers ran
     * @return the figures
     */
    public static Measurement ofLocks(String way, String describe, ClusterOutcome outcome, int workers) {
        Timing.Window window = new Timing.Window(outcome.measuredFrom(), outcome.measuredTo());
        Histogram cycle = Latency.histogram();
        Histogram acquire = Latency.histogram();
        long ops = 0;
        for (CriticalSection s : outcome.sections()) {
            if (window.contains(s.released())) {
                ops++;
                Latency.record(cycle, s.released() - s.requested());
                Latency.record(acquire, s.start() - s.requested());
            }
        }
        double seconds = window.seconds();
        Map<String, Long> counts = new LinkedHashMap<>();
        counts.put("finished", (long) outcome.sections().size() - (outcome.kill() != null ? 1 : 0));
        counts.put("timeouts", outcome.timeouts());
        counts.put("errors", outcome.errors());
        grantsPerWorker(outcome.sections(), window, workers, counts);
        List<String> notes = new ArrayList<>();
        outcome.errorExamples().forEach(e -> notes.add("error: " + e));
        return new Measurement(way, describe, ops, seconds, ops / seconds, Latency.of(cycle), Latency.of(acquire),
                handoffs(outcome.sections(), window), Checker.check(outcome.sections()), counts, notes, outcome.cost());
    }

    /**
     * The contended handoffs: per name, in grant order, the gap from a holder's end to the start of the next
     * holder, counted only when that next holder was already waiting when the first one ended.
     *
     * @param sections all sections
     * @param window the measured window, in which the next holder must start
     * @return the gaps' percentiles
     */
    static Latency handoffs(List<CriticalSection> sections, Timing.Window window) {
        Map<String, List<CriticalSection>> byName = new HashMap<>();
        for (CriticalSection s : sections) {
            byName.computeIfAbsent(s.name(), n -> new ArrayList<>()).add(s);
        }
        Histogram gaps = Latency.histogram();
        for (List<CriticalSection> list : byName.values()) {
            list.sort(Comparator.comparingLong(CriticalSection::start));
            for (int i = 1; i < list.size(); i++) {
                CriticalSection prev = list.get(i - 1);
                CriticalSection next = list.get(i);
                if (next.requested() < prev.end() && next.start() >= prev.end() && window.contains(next.start())) {
                    Latency.record(gaps, next.start() - prev.end());
                }
            }
        }
        return Latency.of(gaps);
    }

    /**
     * Counts the grants of each worker in the measured window (where workers are nodes of their own, as in the
     * handoff scenario, the grants per node), and puts the most and the fewest into {@code counts}.
     */
    static void grantsPerWorker(List<CriticalSection> sections, Timing.Window window, int workers, Map<String, Long> counts) {
        if (workers < 2) {
            return;
        }
        Map<Integer, Long> grants = new HashMap<>();
        for (CriticalSection s : sections) {
            if (window.contains(s.released())) {
                grants.merge(s.worker(), 1L, Long::sum);
            }
        }
        long most = grants.values().stream().mapToLong(Long::longValue).max().orElse(0);
        long fewest = grants.size() < workers ? 0 : grants.values().stream().mapToLong(Long::longValue).min().orElse(0);
        counts.put(MOST_GRANTS, most);
        counts.put(FEWEST_GRANTS, fewest);
    }

    /**
     * @return the most grants of one worker over the fewest of another in the measured window: 1 is fair; infinite
     *     where a worker was never granted; NaN where grants per worker were not counted (one worker, orders)
     */
    public double fairness() {
        if (!counts.containsKey(MOST_GRANTS)) {
            return Double.NaN;
        }
        long fewest = count(FEWEST_GRANTS);
        return fewest == 0 ? (count(MOST_GRANTS) == 0 ? Double.NaN : Double.POSITIVE_INFINITY) : (double) count(MOST_GRANTS) / fewest;
    }

    /** @return the fields results.json adds: the grants max/min per worker, and the cost per operation */
    @Override
    public Map<String, Object> derived() {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("grantsMaxOverMin", fairness());
        fields.put("benchCpuMicrosPerOp", benchCpuPerOp());
        fields.put("serverCpuMicrosPerOp", serverCpuPerOp());
        fields.put("requestsPerOp", requestsPerOp());
        fields.put("fsyncsPerOp", fsyncsPerOp());
        return fields;
    }

    /** @return CPU of the bench JVM (and its worker JVMs) per operation of the measured window, in µs; NaN if unknown */
    public double benchCpuPerOp() {
        return Cost.perOp(cost.benchCpuNanos(), ops, 1000.0);
    }

    /** @return CPU of the server's processes per operation of the measured window, in µs; NaN if unknown */
    public double serverCpuPerOp() {
        return Cost.perOp(cost.serverCpuNanos(), ops, 1000.0);
    }

    /** @return the server's count ({@link Cost#requestUnit()}) per operation of the measured window; NaN if unknown */
    public double requestsPerOp() {
        return Cost.perOp(cost.requests(), ops, 1.0);
    }

    /** @return the server's fsyncs ({@link Cost#fsyncs()}) per operation of the measured window; NaN if unknown */
    public double fsyncsPerOp() {
        return Cost.perOp(cost.fsyncs(), ops, 1.0);
    }

    /** @return operations finished in the whole run, warm-up included: critical sections, or orders stored or refused */
    public long finished() {
        return count("finished");
    }

    /** @return operations given up in the whole run: acquires that timed out or failed, submissions whose every try failed */
    public long givenUp() {
        return count("timeouts") + count("errors") + count("failed submissions");
    }

    /**
     * @param name a count
     * @return its value, 0 if not counted
     */
    public long count(String name) {
        return counts.getOrDefault(name, 0L);
    }
}
