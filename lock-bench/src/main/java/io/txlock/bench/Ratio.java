package io.txlock.bench;

import java.util.Locale;

/**
 * txlock against its yardstick in one scenario, with the target DESIGN.md sets.
 *
 * @param what what is divided by what, e.g. "txlock/floor throughput"
 * @param value the ratio, or NaN if one side is missing
 * @param target the target
 * @param atLeast {@code true} if the value must be at least the target, {@code false} if at most
 * @param applies whether the target applies to this run (e.g. the idempotency target is set for MariaDB with
 *     64 clients); otherwise the ratio is only shown
 */
public record Ratio(String what, double value, double target, boolean atLeast, boolean applies) {

    /** @return whether the target was met (false for a missing value) */
    public boolean met() {
        if (Double.isNaN(value)) {
            return false;
        }
        return atLeast ? value >= target : value <= target;
    }

    /** @return e.g. "0.42x (target >= 0.9x: MISSED)" */
    public String describe() {
        if (Double.isNaN(value)) {
            return "n/a";
        }
        String verdict = !applies ? "info" : met() ? "met" : "MISSED";
        return String.format(Locale.ROOT, "%s (target %s %.1fx: %s)", format(value), atLeast ? ">=" : "<=", target, verdict);
    }

    /**
     * @param value a ratio
     * @return e.g. "0.42x"; "infinite" when the yardstick did nothing in the measured window
     */
    public static String format(double value) {
        return Double.isInfinite(value) ? "infinite (the yardstick finished nothing)" : String.format(Locale.ROOT, "%.2fx", value);
    }
}
