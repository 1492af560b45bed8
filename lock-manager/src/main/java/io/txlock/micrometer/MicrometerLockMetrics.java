package io.txlock.core;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.txlock.LockScope;
import io.txlock.spi.LockProvider;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link LockMetrics} through Micrometer: the only class of txlock that uses Micrometer, loaded only when a
 * {@code MeterRegistry} is given to {@code LockManager.Builder.metrics}. Every meter is registered up front, so
 * dashboards see zeros before the first lock, and recording looks nothing up and allocates nothing.
 *
 * <p>Tags are bounded: {@code provider} (a short kind such as {@code jdbc}, {@code redis}, {@code zookeeper}),
 * {@code scope} where it applies, the outcome or reason, and the caller's own tags. Never the lock name: names are
 * unbounded (one per order, per job), and a tag per name would grow every registry without end.
 *
 * <p>The two gauges are shared by every manager with the same registry and tags: each manager adds its own holdings
 * and waiters to them (a gauge registered twice would otherwise show only the first manager's).
 */
public final class MicrometerLockMetrics implements LockMetrics {

    /** Gauge levels per registry and tags, so that managers sharing both add up; weak: registries come and go. */
    private static final Map<MeterRegistry, Map<Tags, Levels>> LEVELS = new WeakHashMap<>();
    private static final LockScope[] SCOPES = {LockScope.TRANSACTION, LockScope.LEASE};
    private static final int OUTCOMES = Acquire.values().length;

    private final Timer[] acquire;
    private final Timer[] held;
    private final Counter[] lost;
    private final Counter[] renewals;
    private final Levels levels;

    private MicrometerLockMetrics(MeterRegistry registry, Tags common) {
        acquire = new Timer[SCOPES.length * OUTCOMES];
        held = new Timer[SCOPES.length];
        for (LockScope scope : SCOPES) {
            Tags scoped = common.and("scope", scope.name().toLowerCase(Locale.ROOT));
            for (Acquire outcome : Acquire.values()) {
                boolean reentrant = outcome == Acquire.REENTERED;
                acquire[index(scope) * OUTCOMES + outcome.ordinal()] = Timer.builder("txlock.acquire")
                        .description("Time from an acquire call to its grant or failure")
                        .tags(scoped.and("outcome", reentrant ? "granted" : outcome.name().toLowerCase(Locale.ROOT),
                                "reentrant", Boolean.toString(reentrant)))
                        .register(registry);
            }
            held[index(scope)] = Timer.builder("txlock.held")
                    .description("How long a lock was held, from its grant to its release, its transaction's end or its loss")
                    .tags(scoped)
                    .register(registry);
        }
        lost = counters(registry, "txlock.lost", "Locks lost while held", common, "reason", Lost.values());
        renewals = counters(registry, "txlock.renewals", "Lease renewals answered by the backend", common, "outcome",
                Renewal.values());
        levels = levels(registry, common);
    }

    /** @return one counter per value of an enum, tagged {@code key} = the value in lower case, indexed by ordinal */
    private static Counter[] counters(MeterRegistry registry, String name, String description, Tags common, String key,
            Enum<?>[] values) {
        Counter[] counters = new Counter[values.length];
        for (Enum<?> value : values) {
            counters[value.ordinal()] = Counter.builder(name)
                    .description(description)
                    .tags(common.and(key, value.name().toLowerCase(Locale.ROOT)))
                    .register(registry);
        }
        return counters;
    }

    /**
     * @param registry where the meters go
     * @param tags the caller's own tags, added to every meter; bounded values only
     * @param provider the backend, named by its kind in the {@code provider} tag
     * @return the metrics of one manager
     */
    public static LockMetrics create(MeterRegistry registry, Iterable<Tag> tags, LockProvider provider) {
        if (registry == null) {
            throw new IllegalArgumentException("registry must not be null: leave metrics unset to record none");
        }
        if (tags == null) {
            throw new IllegalArgumentException("tags must not be null: pass an empty list for none");
        }
        return new MicrometerLockMetrics(registry, Tags.of("provider", providerKind(provider)).and(tags));
    }

    /**
     * @param provider a provider
     * @return its short kind, from its class name: {@code JdbcLockProvider} is {@code jdbc}, {@code RedisLockProvider}
     *     {@code redis}; {@code custom} for an anonymous class
     */
    static String providerKind(LockProvider provider) {
        String name = provider.getClass().getSimpleName();
        for (String suffix : new String[] {"LockProvider", "Provider"}) {
            if (name.endsWith(suffix) && name.length() > suffix.length()) {
                name = name.substring(0, name.length() - suffix.length());
                break;
            }
        }
        return name.isEmpty() ? "custom" : name.toLowerCase(Locale.ROOT);
    }

    private static int index(LockScope scope) {
        return scope == LockScope.TRANSACTION ? 0 : 1;
    }

    @Override
    public void acquireEnded(LockScope scope, long startNanos, Acquire outcome) {
        acquire[index(scope) * OUTCOMES + outcome.ordinal()].record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void waiting(int delta) {
        levels.waiting.addAndGet(delta);
    }

    @Override
    public void holdingStarted() {
        levels.held.incrementAndGet();
    }

    @Override
    public void holdingEnded(LockScope scope, long grantedNanos) {
        levels.held.decrementAndGet();
        held[index(scope)].record(System.nanoTime() - grantedNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void lost(Lost reason) {
        lost[reason.ordinal()].increment();
    }

    @Override
    public void renewal(Renewal outcome) {
        renewals[outcome.ordinal()].increment();
    }

    private static Levels levels(MeterRegistry registry, Tags tags) {
        synchronized (LEVELS) {
            Map<Tags, Levels> byTags = LEVELS.computeIfAbsent(registry, r -> new HashMap<>());
            Levels levels = byTags.get(tags);
            if (levels == null) {
                levels = new Levels();
                Gauge.builder("txlock.held.active", levels.held, AtomicLong::doubleValue)
                        .description("Locks held now by the managers with these tags (holdings, however often re-entered)")
                        .tags(tags)
                        .register(registry);
                Gauge.builder("txlock.waiting", levels.waiting, AtomicLong::doubleValue)
                        .description("Callers waiting now in the local queues of the managers with these tags, "
                                + "the contender asking the backend included")
                        .tags(tags)
                        .register(registry);
                byTags.put(tags, levels);
            }
            return levels;
        }
    }

    /** What the gauges show; held strongly here, since Micrometer keeps gauge state only weakly. */
    private static final class Levels {
        final AtomicLong held = new AtomicLong();
        final AtomicLong waiting = new AtomicLong();
    }

    @Override
    public String toString() {
        return "MicrometerLockMetrics[held " + levels.held + ", waiting " + levels.waiting + "]";
    }
}
