package io.txlock.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Number formats shared by the terminal table and the HTML page. */
final class Format {

    private Format() {
    }

    /**
     * @param micros a latency in microseconds
     * @return e.g. "85 µs", "1.24 ms", "12.5 ms", "2.10 s"
     */
    static String latency(double micros) {
        if (micros <= 0) {
            return "-";
        }
        if (micros < 1000) {
            return String.format(Locale.ROOT, "%.0f µs", micros);
        }
        if (micros < 10_000) {
            return String.format(Locale.ROOT, "%.2f ms", micros / 1000);
        }
        if (micros < 1_000_000) {
            return String.format(Locale.ROOT, "%.1f ms", micros / 1000);
        }
        return String.format(Locale.ROOT, "%.2f s", micros / 1e6);
    }

    /**
     * @param perSecond a throughput
     * @return e.g. "12,345"
     */
    static String rate(double perSecond) {
        return perSecond >= 100 ? String.format(Locale.ROOT, "%,.0f", perSecond) : String.format(Locale.ROOT, "%.1f", perSecond);
    }

    /**
     * @param m a measurement
     * @return its noteworthy counts, e.g. "dup 0, deadlocks 12"; zero counts of little interest are left out
     */
    /**
     * @param m a way's figures
     * @return its grants max/min per worker, e.g. "1.05 (212/202)"; "-" where not counted
     */
    static String fairness(Measurement m) {
        double ratio = m.fairness();
        if (Double.isNaN(ratio)) {
            return "-";
        }
        String counts = " (" + m.count(Measurement.MOST_GRANTS) + "/" + m.count(Measurement.FEWEST_GRANTS) + ")";
        return (Double.isInfinite(ratio) ? "inf" : String.format(java.util.Locale.ROOT, "%.2f", ratio)) + counts;
    }

    static String counts(Measurement m) {
        List<String> parts = new ArrayList<>();
        if (m.counts().containsKey("duplicates")) {
            parts.add("dup " + m.count("duplicates"));
            parts.add("refused " + m.count("refused duplicates"));
            addIfNonZero(parts, m, "not stored", "not stored");
            addIfNonZero(parts, m, "deadlocks", "deadlocks");
            addIfNonZero(parts, m, "lock wait timeouts", "lock timeouts");
            addIfNonZero(parts, m, "other errors", "errors");
            addIfNonZero(parts, m, "failed submissions", "failed");
        } else {
            if (m.counts().containsKey("lost updates")) {
                parts.add("lost " + m.count("lost updates"));
            }
            addIfNonZero(parts, m, "timeouts", "timeouts");
            addIfNonZero(parts, m, "errors", "errors");
        }
        return String.join(", ", parts);
    }

    private static void addIfNonZero(List<String> parts, Measurement m, String key, String label) {
        if (m.count(key) != 0) {
            parts.add(label + " " + m.count(key));
        }
    }
}
