package io.txlock.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How the suite runs; every field can be set with a system property of the same name, prefixed {@code chaos.}.
 *
 * @param runs which backends and strategies ({@code chaos.runs}: {@code short}, {@code all}, or
 *     {@code backend[:strategy],...})
 * @param duration how long each run keeps injecting faults ({@code chaos.duration}, ISO-8601); at least one cycle
 *     of every fault is always done
 * @param holders how many holder JVMs contend at once ({@code chaos.holders})
 * @param lease the holders' lease ({@code chaos.lease})
 * @param slack added to the bound of a dead holder's lock ({@code chaos.slack})
 * @param recoveryBound how soon after a fault every surviving holder must be granted again ({@code chaos.recovery})
 * @param dir where servers, histories and the report go ({@code chaos.dir})
 */
record ChaosSettings(String runs, Duration duration, int holders, Duration lease, Duration slack, Duration recoveryBound,
        Path dir) {

    /** The short run of {@code mvn verify}: one cycle of faults per backend and strategy. */
    static final List<String> SHORT = List.of("postgresql:SELECT_FOR_UPDATE", "postgresql:OPTIMISTIC_VERSION",
            "mariadb:SELECT_FOR_UPDATE", "redis", "zookeeper", "etcd");

    /** A run: a backend and one of its strategies. */
    record Run(String backend, String strategy) {
    }

    static ChaosSettings fromSystemProperties() {
        return new ChaosSettings(
                System.getProperty("chaos.runs", "short"),
                Duration.parse(System.getProperty("chaos.duration", "PT0S")),
                Integer.getInteger("chaos.holders", 3),
                Duration.parse(System.getProperty("chaos.lease", "PT2S")),
                Duration.parse(System.getProperty("chaos.slack", "PT8S")),
                Duration.parse(System.getProperty("chaos.recovery", "PT60S")),
                Path.of(System.getProperty("chaos.dir", "target/chaos")).toAbsolutePath());
    }

    ChaosSettings {
        if (holders < 2) {
            throw new IllegalArgumentException("chaos.holders must be at least 2, so that someone contends: was " + holders);
        }
        if (lease.toMillis() < 100) {
            throw new IllegalArgumentException("chaos.lease must be at least 100 ms, was " + lease);
        }
    }

    /** @return the runs, each backend's strategy resolved (its first when none is named) */
    List<Run> resolvedRuns() {
        List<String> names = switch (runs) {
            case "short" -> SHORT;
            case "all" -> Backends.all().stream()
                    .flatMap(b -> b.strategies().stream().map(s -> b.name() + ":" + s)).toList();
            default -> List.of(runs.split(","));
        };
        List<Run> resolved = new ArrayList<>();
        for (String name : names) {
            String[] parts = name.trim().split(":", 2);
            ChaosBackend backend = Backends.named(parts[0]);
            String strategy = parts.length > 1 ? parts[1] : backend.strategies().get(0);
            if (!backend.strategies().contains(strategy)) {
                throw new IllegalArgumentException("chaos.runs: " + backend.name() + " has no strategy " + strategy
                        + "; it has " + backend.strategies());
            }
            resolved.add(new Run(backend.name(), strategy));
        }
        return resolved;
    }
}
