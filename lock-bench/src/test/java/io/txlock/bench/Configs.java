package io.txlock.bench;

import java.time.Duration;
import java.util.List;

/** Short runs for tests: they prove the machinery, they measure nothing. */
final class Configs {

    private Configs() {
    }

    static BenchConfig quick(BackendKind kind, List<String> strategies, List<String> scenarios) {
        return new BenchConfig(List.of(BackendSpec.defaults(kind)), strategies, scenarios,
                new Timing(Duration.ofMillis(200), Duration.ofMillis(400)), 4, 4, 8, 50, 0.3, Duration.ZERO, 0, 0, false,
                Duration.ofSeconds(20), Duration.ofSeconds(10), 3, null, false);
    }

    static BenchConfig withTiming(BenchConfig c, Timing timing) {
        return new BenchConfig(c.backends(), c.strategies(), c.scenarios(), timing, c.workers(), c.handoffWorkers(),
                c.clients(), c.keys(), c.duplicates(), c.hold(), c.nodes(), c.processes(), c.killHolder(), c.waitTime(), c.lease(),
                c.retries(), c.report(), c.jitWarmup());
    }

    static BenchConfig withHold(BenchConfig c, Duration hold) {
        return new BenchConfig(c.backends(), c.strategies(), c.scenarios(), c.timing(), c.workers(), c.handoffWorkers(),
                c.clients(), c.keys(), c.duplicates(), hold, c.nodes(), c.processes(), c.killHolder(), c.waitTime(), c.lease(),
                c.retries(), c.report(), c.jitWarmup());
    }

    static BenchConfig withKeys(BenchConfig c, int keys) {
        return new BenchConfig(c.backends(), c.strategies(), c.scenarios(), c.timing(), c.workers(), c.handoffWorkers(),
                c.clients(), keys, c.duplicates(), c.hold(), c.nodes(), c.processes(), c.killHolder(), c.waitTime(), c.lease(),
                c.retries(), c.report(), c.jitWarmup());
    }

    static BenchConfig inProcesses(BenchConfig c, int processes, boolean kill, Duration lease) {
        return new BenchConfig(c.backends(), c.strategies(), c.scenarios(), c.timing(), c.workers(), c.handoffWorkers(),
                c.clients(), c.keys(), c.duplicates(), c.hold(), c.nodes(), processes, kill, c.waitTime(), lease, c.retries(),
                c.report(), c.jitWarmup());
    }

    static BenchConfig withClients(BenchConfig c, int clients, int retries) {
        return new BenchConfig(c.backends(), c.strategies(), c.scenarios(), c.timing(), c.workers(), c.handoffWorkers(),
                clients, c.keys(), c.duplicates(), c.hold(), c.nodes(), c.processes(), c.killHolder(), c.waitTime(), c.lease(),
                retries, c.report(), c.jitWarmup());
    }
}
