package io.txlock.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.txlock.LockScope;
import io.txlock.LockMetrics;
import io.txlock.spi.LockProvider;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A lock manager's acquires, holdings and releases as Micrometer {@link Observation}s, which an
 * {@link ObservationRegistry} turns into timers, traces (spans, with Micrometer Tracing) or logs, as its handlers
 * decide: give {@link #of(ObservationRegistry, LockProvider)} to {@code LockManager.Builder.metrics}. Micrometer's
 * {@code micrometer-observation} is an optional dependency of txlock.
 *
 * <pre>{@code
 * LockManager locks = LockManager.builder(provider)
 *         .metrics(MicrometerLockObservations.of(observationRegistry, provider)).build();
 * }</pre>
 *
 * <ul>
 *   <li>{@value #ACQUIRE}: from the call to its grant or failure, a child of the caller's current observation; key
 *       values {@code txlock.provider}, {@code txlock.scope}, {@code txlock.outcome} ({@code granted}, {@code reentered},
 *       {@code timeout}, {@code failed}, {@code interrupted}, {@code cancelled}) and, high cardinality,
 *       {@code txlock.name};</li>
 *   <li>{@value #HOLD}: from the grant to its release, its transaction's end or its loss; {@code txlock.provider},
 *       {@code txlock.scope}, {@code txlock.outcome} ({@code released} or {@code lost}) and, high cardinality,
 *       {@code txlock.name}, {@code txlock.fencing_token} and, when lost, {@code txlock.lost_reason};</li>
 *   <li>{@value #RELEASE}: the owner's last release of a LEASE-scoped lock, from the call until the backend
 *       answered; {@code txlock.provider} and, high cardinality, {@code txlock.name} and {@code txlock.fencing_token}.</li>
 * </ul>
 *
 * <p>The lock name is a high-cardinality key value only: traces carry it, metrics made from these observations do not.
 * Their names differ from {@link MicrometerLockMetrics}' meters, so both may record into one registry.
 */
public final class MicrometerLockObservations implements LockMetrics {

    /** The observation of an acquire. */
    public static final String ACQUIRE = "txlock.lock.acquire";
    /** The observation of a holding. */
    public static final String HOLD = "txlock.lock.hold";
    /** The observation of a release. */
    public static final String RELEASE = "txlock.lock.release";

    private final ObservationRegistry registry;
    private final String provider;
    /** The holdings under way, by name and token: one per name and manager at a time. */
    private final Map<Held, Observation[]> holdings = new ConcurrentHashMap<>();

    private MicrometerLockObservations(ObservationRegistry registry, String provider) {
        this.registry = registry;
        this.provider = provider;
    }

    /**
     * @param registry where the observations go
     * @param provider the manager's backend, named by its kind in {@code txlock.provider} ({@code jdbc}, {@code redis}, ...)
     * @return the observations of one manager; give each manager its own
     * @throws IllegalArgumentException if an argument is null
     */
    public static LockMetrics of(ObservationRegistry registry, LockProvider provider) {
        if (registry == null) {
            throw new IllegalArgumentException("registry must not be null: leave observations unset to record none");
        }
        if (provider == null) {
            throw new IllegalArgumentException("provider must not be null: pass the manager's provider");
        }
        return new MicrometerLockObservations(registry, ProviderKind.of(provider));
    }

    @Override
    public LockMetrics acquireStarted(String name, LockScope scope) {
        if (registry.isNoop()) {
            return this;
        }
        return new Acquiring(observation(ACQUIRE, "txlock acquire", name).lowCardinalityKeyValue("txlock.scope", lower(scope))
                .start());
    }

    @Override
    public void acquireEnded(LockScope scope, long startNanos, Acquire outcome) {
    }

    @Override
    public void waiting(int delta) {
    }

    @Override
    public void holdingStarted() {
    }

    @Override
    public void holdingStarted(String name, LockScope scope, long fencingToken) {
        if (registry.isNoop()) {
            return;
        }
        Observation hold = observation(HOLD, "txlock hold", name).lowCardinalityKeyValue("txlock.scope", lower(scope))
                .highCardinalityKeyValue("txlock.fencing_token", Long.toString(fencingToken)).start();
        holdings.put(new Held(name, fencingToken), new Observation[] {hold, null});
    }

    @Override
    public void releaseStarted(String name, long fencingToken) {
        Observation[] held = holdings.get(new Held(name, fencingToken));
        if (held != null) {
            held[1] = observation(RELEASE, "txlock release", name)
                    .highCardinalityKeyValue("txlock.fencing_token", Long.toString(fencingToken)).start();
        }
    }

    @Override
    public void holdingEnded(LockScope scope, long grantedNanos) {
    }

    @Override
    public void holdingEnded(String name, long fencingToken, LockScope scope, long grantedNanos, String lostReason) {
        Observation[] held = holdings.remove(new Held(name, fencingToken));
        if (held == null) {
            return;
        }
        if (held[1] != null) {
            held[1].stop();
        }
        held[0].lowCardinalityKeyValue("txlock.outcome", lostReason == null ? "released" : "lost");
        if (lostReason != null) {
            held[0].highCardinalityKeyValue("txlock.lost_reason", lostReason);
        }
        held[0].stop();
    }

    @Override
    public void lost(Lost reason) {
    }

    @Override
    public void renewal(Renewal outcome) {
    }

    private Observation observation(String name, String contextualName, String lock) {
        return Observation.createNotStarted(name, registry).contextualName(contextualName)
                .lowCardinalityKeyValue("txlock.provider", provider).highCardinalityKeyValue("txlock.name", lock);
    }

    private static String lower(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return "MicrometerLockObservations[" + holdings.size() + " holdings observed]";
    }

    private record Held(String name, long token) {
    }

    /** One acquire under way: the core reports only its end here. */
    private final class Acquiring implements LockMetrics {
        private final Observation observation;

        Acquiring(Observation observation) {
            this.observation = observation;
        }

        @Override
        public void acquireEnded(LockScope scope, long startNanos, Acquire outcome) {
            observation.lowCardinalityKeyValue("txlock.outcome", lower(outcome)).stop();
        }
    }
}
