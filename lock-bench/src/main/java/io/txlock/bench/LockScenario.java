package io.txlock.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the lock scenarios (counter, many keys, contention) share: run the workload through txlock (threads or
 * worker JVMs), run the same workload on the backend's raw lock for the floor, check both, compare.
 */
abstract class LockScenario implements Scenario {

    /** Which raw floor a scenario compares against. */
    enum Floor {
        /** none */
        NONE,
        /** the bare lock/unlock cycle matching each strategy */
        CYCLE,
        /** the backend's own blocking handoff, once per backend */
        BLOCKING
    }

    abstract int workers(BenchConfig config);

    abstract int names(BenchConfig config);

    abstract boolean counter();

    abstract Floor floor();

    /** @return txlock against the floor, or null if there is no floor */
    abstract Target ratio(Measurement txlock, Measurement floor, Backend backend);

    @Override
    public List<ScenarioResult> run(Backend backend, List<String> strategies, BenchConfig config, Progress progress) throws Exception {
        List<ScenarioResult> results = new ArrayList<>();
        Measurement shared = floor() == Floor.BLOCKING ? measureFloor(backend, strategies.get(0), config, progress) : null;
        for (String strategy : strategies) {
            Path counterFile = counter() ? Files.createTempFile("txlock-bench-counter-", ".bin") : null;
            try {
                LockWorkload workload = workload(config, counterFile);
                ClusterOutcome outcome = runTxlock(backend, strategy, workload, config, progress);
                Measurement txlock = Measurement.ofLocks("txlock", "LockManager.acquire + release, LEASE scope", outcome);
                List<String> failures = new ArrayList<>();
                if (counterFile != null) {
                    LostUpdates lost = LostUpdates.count(outcome.sections(), readCounters(counterFile), outcome.kill());
                    lost.addTo(txlock.counts());
                    if (lost.failure("txlock") != null) {
                        failures.add(lost.failure("txlock"));
                    }
                }
                Measurement floor = switch (floor()) {
                    case NONE -> null;
                    case CYCLE -> measureFloor(backend, strategy, config, progress);
                    case BLOCKING -> shared;
                };
                check("txlock", txlock, failures);
                if (floor != null) {
                    check("floor", floor, failures);
                }
                if (outcome.kill() != null && !outcome.kill().recovered()) {
                    failures.add("after the kill: " + outcome.kill().describe());
                }
                List<Measurement> ms = floor == null ? List.of(txlock) : List.of(txlock, floor);
                List<Target> targets = floor == null ? List.of() : List.of(ratio(txlock, floor, backend));
                results.add(new ScenarioResult(backend.kind().cliName(), strategy, id(), settings(config), ms, targets, outcome.kill(),
                        failures));
            } finally {
                if (counterFile != null) {
                    Files.deleteIfExists(counterFile);
                }
            }
        }
        return results;
    }

    LockWorkload workload(BenchConfig config, Path counterFile) {
        return new LockWorkload(id(), names(config), config.hold(), counterFile, config.waitTime(), config.lease());
    }

    String settings(BenchConfig config) {
        int workers = workers(config);
        String where = config.processes() > 0
                ? Math.min(config.processes(), workers) + " worker JVMs" + (config.killHolder() ? ", one killed with kill -9 halfway" : "")
                : "threads on " + config.nodesFor(workers) + " nodes";
        return workers + " workers (" + where + "), " + names(config) + (names(config) == 1 ? " name" : " names") + ", hold "
                + config.hold().toNanos() / 1000 + " µs" + (counter() ? ", shared counter in a file" : "");
    }

    private ClusterOutcome runTxlock(Backend backend, String strategy, LockWorkload workload, BenchConfig config,
            Progress progress) throws Exception {
        int workers = workers(config);
        progress.phase(label(backend, strategy, "txlock"), config.timing().totalNanos());
        if (config.processes() > 0) {
            return ProcessCluster.run(backend, strategy, workload, workers, config.processes(), config.timing(),
                    config.killHolder(), progress);
        }
        try (Site site = backend.openSite(strategy, config.nodesFor(workers))) {
            return ThreadCluster.run(workers, w -> Locker.txlock(site.nodeOf(w), workload), workload, config.timing(), progress);
        }
    }

    private Measurement measureFloor(Backend backend, String strategy, BenchConfig config, Progress progress) throws Exception {
        int workers = workers(config);
        Optional<RawLocks> opened = backend.openRaw(strategy);
        if (opened.isEmpty()) {
            return null;
        }
        LockWorkload workload = workload(config, null);
        try (RawLocks raw = opened.get()) {
            raw.prepare(workload.allNames());
            boolean blocking = floor() == Floor.BLOCKING;
            progress.phase(label(backend, blocking ? "" : strategy, "floor"), config.timing().totalNanos());
            ClusterOutcome outcome = ThreadCluster.run(workers,
                    w -> Locker.raw(blocking ? raw.blockingSession() : raw.cycleSession()), workload, config.timing(), progress);
            return Measurement.ofLocks("floor", blocking ? raw.describeHandoff() : raw.describeCycle(), outcome);
        }
    }

    private String label(Backend backend, String strategy, String way) {
        return backend.kind().cliName() + (strategy.isEmpty() ? "" : " " + strategy) + " · " + id() + " · " + way;
    }

    private static void check(String way, Measurement m, List<String> failures) {
        if (!m.verdict().passed()) {
            failures.add(way + ": checker " + m.verdict().summary());
            m.verdict().examples().forEach(e -> failures.add(way + ": " + e));
        }
    }

    private static FileCounters.Total readCounters(Path file) {
        try (FileCounters c = new FileCounters(file)) {
            return c.total();
        }
    }
}
