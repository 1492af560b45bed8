package io.txlock.bench;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A figure of one run against a target docs/design.md sets: txlock against its yardstick (a ratio), or a count that
 * must stay within a bound (deadlocks under txlock).
 *
 * @param what what is measured, e.g. "txlock/floor throughput" or "txlock deadlocks"
 * @param value the figure; a ratio is NaN if a side was not measured, infinite if the yardstick finished nothing
 * @param target the target
 * @param atLeast {@code true} if the value must be at least the target, {@code false} if at most
 * @param applies whether the target applies to this run (e.g. the idempotency target is set for MariaDB with
 *     64 clients); otherwise the figure is only shown
 * @param kind a ratio (shown as "0.42x") or a count
 */
public record Target(String what, double value, double target, boolean atLeast, boolean applies, Kind kind) implements Json.Derived {

    /** What a target's value is. */
    public enum Kind {
        /** txlock divided by its yardstick */
        RATIO,
        /** occurrences */
        COUNT
    }

    /** How a run fared against a target. */
    public enum Verdict {
        /** the value reached the target */
        MET,
        /** the value did not reach the target */
        MISSED,
        /** a figure the ratio needs was not measured: a miss, since nothing shows the target was reached */
        NOT_MEASURED,
        /** the target does not apply to this run: the value is only shown */
        INFO;

        /** @return e.g. "not measured" */
        public String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', ' ');
        }
    }

    /**
     * @param what what is divided by what, e.g. "txlock/floor throughput"
     * @param value the ratio
     * @param target the target
     * @param atLeast whether the ratio must be at least the target (else at most)
     * @param applies whether the target applies to this run
     * @return the target
     */
    public static Target ratio(String what, double value, double target, boolean atLeast, boolean applies) {
        return new Target(what, value, target, atLeast, applies, Kind.RATIO);
    }

    /**
     * @param what what is counted, e.g. "txlock deadlocks"
     * @param count how often it happened
     * @param limit the most it may happen
     * @return the target, which always applies
     */
    public static Target atMost(String what, long count, long limit) {
        return new Target(what, count, limit, false, true, Kind.COUNT);
    }

    /** @return whether the value reached the target, whether or not it applies (false if not measured) */
    public boolean met() {
        if (Double.isNaN(value)) {
            return false;
        }
        return atLeast ? value >= target : value <= target;
    }

    /** @return the verdict */
    public Verdict verdict() {
        if (!applies) {
            return Verdict.INFO;
        }
        if (Double.isNaN(value)) {
            return Verdict.NOT_MEASURED;
        }
        return met() ? Verdict.MET : Verdict.MISSED;
    }

    /** @return whether the target applies and was not reached, measured or not */
    public boolean missed() {
        return verdict() == Verdict.MISSED || verdict() == Verdict.NOT_MEASURED;
    }

    /** @return e.g. {@code "0.42x (target >= 0.9x: MISSED)"}, {@code "not measured (target <= 2.0x: MISSED)"}, {@code "0 (target <= 0: met)"} */
    public String describe() {
        String verdict = missed() ? "MISSED" : verdict().label();
        return String.format(Locale.ROOT, "%s (target %s %s: %s)", formatValue(), atLeast ? ">=" : "<=", formatTarget(), verdict);
    }

    /** @return the value as the report shows it: "0.42x", "infinite (…)", "not measured", "3" */
    public String formatValue() {
        if (Double.isNaN(value)) {
            return "not measured";
        }
        return kind == Kind.RATIO ? format(value) : String.format(Locale.ROOT, "%.0f", value);
    }

    /** @return the target as the report shows it: "0.9x", "0" */
    public String formatTarget() {
        return kind == Kind.RATIO ? String.format(Locale.ROOT, "%.1fx", target) : String.format(Locale.ROOT, "%.0f", target);
    }

    /** In results.json, beside the fields: {@code met} and {@code verdict} ("met", "missed", "not measured", "info"). */
    @Override
    public Map<String, Object> derived() {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("met", met());
        fields.put("verdict", verdict().label());
        return fields;
    }

    /**
     * @param value a ratio
     * @return e.g. "0.42x"; "infinite" when the yardstick did nothing in the measured window
     */
    public static String format(double value) {
        return Double.isInfinite(value) ? "infinite (the yardstick finished nothing)" : String.format(Locale.ROOT, "%.2fx", value);
    }
}
