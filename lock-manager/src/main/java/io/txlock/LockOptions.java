package io.txlock;

import java.time.Duration;
import java.util.Objects;

/**
 * How to acquire one lock: how long to wait, how long a lease lasts, which scope. Immutable; every
 * {@code with…} method returns a copy.
 *
 * <pre>{@code
 * LockOptions.defaults().withWait(Duration.ofSeconds(3)).withLease(Duration.ofSeconds(30)).withScope(LockScope.LEASE)
 * }</pre>
 */
public final class LockOptions {

    /**
     * The longest lease, a year: longer ones are refused, since the backends count leases in milliseconds of their
     * own clock and a lock that must outlive its holder that long should be renewed instead.
     */
    public static final Duration MAX_LEASE = Duration.ofDays(365);

    /** The longest wait: {@link #withWait(Duration)} with this waits until granted or interrupted. */
    public static final Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);

    private static final Duration MIN_LEASE = Duration.ofMillis(1);
    private static final LockOptions DEFAULTS =
            new LockOptions(Duration.ofSeconds(30), Duration.ofSeconds(30), LockScope.AUTO, true);

    private final Duration wait;
    private final Duration lease;
    private final LockScope scope;
    private final boolean autoRenew;

    private LockOptions(Duration wait, Duration lease, LockScope scope, boolean autoRenew) {
        this.wait = wait;
        this.lease = lease;
        this.scope = scope;
        this.autoRenew = autoRenew;
    }

    /** @return wait 30 s, lease 30 s renewed while the holder lives, scope {@link LockScope#AUTO} */
    public static LockOptions defaults() {
        return DEFAULTS;
    }

    /**
     * @param wait how long {@code acquire} may wait for another holder; zero never waits, {@link #FOREVER}
     *     waits until granted
     * @return a copy with this wait
     * @throws IllegalArgumentException if {@code wait} is null or negative
     */
    public LockOptions withWait(Duration wait) {
        if (wait == null || wait.isNegative()) {
            throw new IllegalArgumentException("wait must be zero or positive (zero means do not wait), was " + wait);
        }
        return new LockOptions(wait, lease, scope, autoRenew);
    }

    /**
     * @param lease how long a {@link LockScope#LEASE LEASE} lock outlives a holder that stopped renewing it
     *     (for example because its JVM died); at least 1 ms
     * @return a copy with this lease
     * @throws IllegalArgumentException if {@code lease} is null, shorter than 1 ms or longer than {@link #MAX_LEASE}
     */
    public LockOptions withLease(Duration lease) {
        return new LockOptions(wait, requireLease(lease), scope, autoRenew);
    }

    /**
     * @param scope how long the lock lasts
     * @return a copy with this scope
     * @throws IllegalArgumentException if {@code scope} is null
     */
    public LockOptions withScope(LockScope scope) {
        if (scope == null) {
            throw new IllegalArgumentException("scope must be one of " + java.util.Arrays.toString(LockScope.values()) + ", was null");
        }
        return new LockOptions(wait, lease, scope, autoRenew);
    }

    /**
     * @param autoRenew {@code true} (the default) renews a lease in the background while the holder lives;
     *     {@code false} makes the lease a hard limit: the lock is lost when it runs out, even if the holder is
     *     still working, and {@link LockHandle#isValid()} turns false. A lock held in {@link LockScope#TRANSACTION}
     *     scope lasts until its transaction ends and is renewed until then whatever this says
     * @return a copy with this renewal setting
     */
    public LockOptions withAutoRenew(boolean autoRenew) {
        return new LockOptions(wait, lease, scope, autoRenew);
    }

    /**
     * @param lease a lease asked for, of a new lock or by {@code LockHandle.extend}
     * @return {@code lease}
     * @throws IllegalArgumentException if {@code lease} is null, shorter than 1 ms or longer than {@link #MAX_LEASE}
     */
    public static Duration requireLease(Duration lease) {
        if (lease == null || lease.compareTo(MIN_LEASE) < 0) {
            throw new IllegalArgumentException("lease must be at least 1 ms, was " + lease);
        }
        if (lease.compareTo(MAX_LEASE) > 0) {
            throw new IllegalArgumentException("lease must be at most " + MAX_LEASE.toDays() + " days (LockOptions.MAX_LEASE), was "
                    + lease + ": a lock that must outlive its holder for longer needs no lease, use autoRenew");
        }
        return lease;
    }

    /**
     * Reads a duration as configuration writes it: {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}, {@code 1d}, an
     * ISO-8601 duration such as {@code PT5S}, {@code 0}, or {@code forever} ({@link #FOREVER}).
     *
     * @param text the duration
     * @return it, never negative
     * @throws IllegalArgumentException if {@code text} is none of these, saying how to write one
     */
    public static Duration parseDuration(String text) {
        String t = text == null ? "" : text.strip().toLowerCase(java.util.Locale.ROOT);
        if (t.equals("forever")) {
            return FOREVER;
        }
        if (t.equals("0")) {
            return Duration.ZERO;
        }
        java.util.regex.Matcher m = SIMPLE_DURATION.matcher(t);
        try {
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                return switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "h" -> Duration.ofHours(n);
                    default -> Duration.ofDays(n);
                };
            }
            Duration d = Duration.parse(t.toUpperCase(java.util.Locale.ROOT));
            if (!d.isNegative()) {
                return d;
            }
        } catch (java.time.format.DateTimeParseException | ArithmeticException e) {
            // reported below
        }
        throw new IllegalArgumentException("'" + text + "' is not a duration: write e.g. '500ms', '5s', '2m', '1h', an ISO-8601"
                + " duration such as 'PT5S', '0' or 'forever'");
    }

    private static final java.util.regex.Pattern SIMPLE_DURATION = java.util.regex.Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

    /** @return how long an acquire may wait */
    public Duration waitTime() {
        return wait;
    }

    /** @return how long a lease lasts without renewal */
    public Duration lease() {
        return lease;
    }

    /** @return the requested scope */
    public LockScope scope() {
        return scope;
    }

    /** @return whether leases are renewed while the holder lives */
    public boolean autoRenew() {
        return autoRenew;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LockOptions other && wait.equals(other.wait) && lease.equals(other.lease)
                && scope == other.scope && autoRenew == other.autoRenew;
    }

    @Override
    public int hashCode() {
        return Objects.hash(wait, lease, scope, autoRenew);
    }

    @Override
    public String toString() {
        return "LockOptions[wait=" + wait + ", lease=" + lease + ", scope=" + scope + ", autoRenew=" + autoRenew + "]";
    }
}
