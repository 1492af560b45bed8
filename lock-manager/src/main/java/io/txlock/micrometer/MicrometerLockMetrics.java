package io.txlock.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.txlock.LockScope;
import io.txlock.LockMetrics;
import io.txlock.spi.LockProvider;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A lock manager's meters in a Micrometer {@code MeterRegistry}: give {@link #of(MeterRegistry, LockProvider)} to
 * {@code LockManager.Builder.metrics}. Micrometer ({@code io.micrometer:micrometer-core}) is an optional dependency of
 * txlock: only this package uses it, and an application that never names it does not need it on its class path.
 *
 * <pre>{@code
 * LockManager locks = LockManager.builder(provider).metrics(MicrometerLockMetrics.of(meterRegistry, provider)).build();
 * }</pre>
 *
 * <p>Meters, each tagged {@code provider} with the backend's kind ({@code jdbc}, {@code redis}, ...):
 * {@code txlock.acquire} (timer: call to grant or failure; tags {@code scope}, {@code outcome} =
 * {@code granted|timeout|failed|interrupted|cancelled}, {@code reentrant}), {@code txlock.held} (timer: grant to
 * release, transaction end or loss; tag {@code scope}), {@code txlock.held.active} and {@code txlock.waiting} (gauges:
 * locks held and callers waiting now), {@code txlock.lost} (counter; tag {@code reason}) and {@code txlock.renewals}
 * (counter; tag {@code outcome} = {@code ok|refused|failed}). See {@code docs/metrics.md}. Every meter is registered
 * up front, so dashboards see zeros before the first lock, and recording looks nothing up and allocates nothing.
 *
 * <p>Tags are bounded: {@code provider}, {@code scope} where it applies, the outcome or reason, and the caller's own
 * tags. Never the lock name: names are unbounded (one per order, per job), and a tag per name would grow every
 * registry without end.
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
     * @param provider the manager's backend, named by its kind in the {@code provider} tag
     * @return the metrics of one manager
     * @throws IllegalArgumentException if an argument is null
     */
    public static LockMetrics of(MeterRegistry registry, LockProvider provider) {
        return of(registry, provider, java.util.List.of());
    }

    /**
     * As {@link #of(MeterRegistry, LockProvider)}, with tags of your own on every meter, for example to tell apart two
     * managers over different databases. Give bounded values only, never a lock name. Managers with the same registry
     * and tags add up in the gauges.
     *
     * @param registry where the meters go
     * @param provider the manager's backend, named by its kind in the {@code provider} tag
     * @param tags added to every meter
     * @return the metrics of one manager
     * @throws IllegalArgumentException if an argument is null
     */
    public static LockMetrics of(MeterRegistry registry, LockProvider provider, Iterable<Tag> tags) {
        if (registry == null) {
            throw new IllegalArgumentException("registry must not be null: leave metrics unset to record none");
        }
        if (provider == null) {
            throw new IllegalArgumentException("provider must not be null: pass the manager's provider");
        }
        if (tags == null) {
            throw new IllegalArgumentException("tags must not be null: pass an empty list for none");
        }
        return new MicrometerLockMetrics(registry, Tags.of("provider", ProviderKind.of(provider)).and(tags));
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
