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
 * @param way "txlock", "floor" or "seed"
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
 */
public record Measurement(String way, String describe, long ops, double seconds, double throughput, Latency latency,
        Latency acquire, Latency handoff, Checker.Verdict verdict, Map<String, Long> counts, List<String> notes) {

    /**
     * Measures a run of lock workers from its critical sections.
     *
     * @param way the way's name
     * @param describe what it does
     * @param outcome the run
     * @return the figures, with the checker's verdict on all sections and the run's timeouts and errors counted
     */
    public static Measurement ofLocks(String way, String describe, ClusterOutcome outcome) {
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
        List<String> notes = new ArrayList<>();
        outcome.errorExamples().forEach(e -> notes.add("error: " + e));
        return new Measurement(way, describe, ops, seconds, ops / seconds, Latency.of(cycle), Latency.of(acquire),
                handoffs(outcome.sections(), window), Checker.check(outcome.sections()), counts, notes);
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
