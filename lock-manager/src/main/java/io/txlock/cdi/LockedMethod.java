package io.txlock.cdi;

import io.txlock.LockOptions;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A {@link Locked} annotation compiled for one method: its name template and the options it overrides. */
final class LockedMethod {

    private static final Pattern SIMPLE_DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

    private final NameTemplate name;
    private final Locked locked;
    private final Duration wait;
    private final Duration lease;

    private LockedMethod(NameTemplate name, Locked locked, Duration wait, Duration lease) {
        this.name = name;
        this.locked = locked;
        this.wait = wait;
        this.lease = lease;
    }

    /**
     * @param locked the annotation
     * @param method the method it names locks for; null for a class-level annotation
     * @param where the annotated element, for messages
     * @return the compiled annotation
     * @throws IllegalArgumentException naming what is wrong with the annotation
     */
    static LockedMethod compile(Locked locked, Method method, String where) {
        NameTemplate name = NameTemplate.compile(locked.value(), method, where);
        String in = "@Locked(\"" + locked.value() + "\") on " + where;
        Duration wait = duration(locked.waitTime(), "waitTime", in);
        Duration lease = duration(locked.lease(), "lease", in);
        if (lease != null && lease.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException(in + ": lease must be at least 1 ms, was '" + locked.lease() + "'");
        }
        return new LockedMethod(name, locked, wait, lease);
    }

    /** @return the lock name for a call with {@code arguments} */
    String name(Object[] arguments) {
        return name.render(arguments);
    }

    /** @return the manager's defaults with this annotation's wait, lease and scope */
    LockOptions options(LockOptions defaults) {
        LockOptions options = defaults.withScope(locked.scope());
        if (wait != null) {
            options = options.withWait(wait);
        }
        if (lease != null) {
            options = options.withLease(lease);
        }
        return options;
    }

    /** @return the duration, or null if {@code text} is empty (the manager's default) */
    static Duration duration(String text, String attribute, String in) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        if (t.isEmpty()) {
            return null;
        }
        if (t.equals("forever")) {
            return LockOptions.FOREVER;
        }
        if (t.equals("0")) {
            return Duration.ZERO;
        }
        Matcher m = SIMPLE_DURATION.matcher(t);
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
            Duration d = Duration.parse(text.strip());
            if (!d.isNegative()) {
                return d;
            }
        } catch (DateTimeParseException | ArithmeticException e) {
            // reported below
        }
        throw new IllegalArgumentException(in + ": " + attribute + " '" + text + "' is not a duration: write e.g. '500ms',"
                + " '5s', '2m', '1h', an ISO-8601 duration such as 'PT5S', '0' or 'forever'");
    }
}
