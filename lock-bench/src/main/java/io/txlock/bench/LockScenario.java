package io.txlock.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the lock scenarios (counter, many keys, contention) share: run the workload through txlock (threads or
 * worker JVMs), run the same workload on the backend's raw lock for the floor and, where there is a floor, through
 * the backend's peers (threads, a node each as txlock's), check them all, compare. In every
 * critical section, of txlock and of the floor alike, the holder increments its name's shared counter, read and
 * written back without a lock of its own: a lock that lets two holders in at once loses updates, even when its
 * sections are far too short for their times to overlap.
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

    /** Runs the workers of one way on a workload. */
    @FunctionalInterface
    private interface Workers {
        ClusterOutcome run(LockWorkload workload) throws Exception;
    }

    /** One way's run: what happened, its figures, and the updates it lost. */
    private record Counted(ClusterOutcome outcome, Measurement measurement, LostUpdates lost) {
    }

    abstract int workers(BenchConfig config);

    abstract int names(BenchConfig config);

    abstract Floor floor();

    /** @return txlock against the floor, or null if there is no floor */
    abstract Target ratio(Measurement txlock, Measurement floor, Backend backend);

    @Override
    public List<ScenarioResult> run(Backend backend, List<String> strategies, BenchConfig config, Progress progress) throws Exception {
        try (ServerUsage server = backend.openServerUsage()) {
            return run(backend, strategies, config, progress, new CostMeter(server));
        }
    }

    private List<ScenarioResult> run(Backend backend, List<String> strategies, BenchConfig config, Progress progress, CostMeter meter)
            throws Exception {
        List<ScenarioResult> results = new ArrayList<>();
        Map<String, Counted> handoffFloors = new HashMap<>();
        List<Measurement> peers = floor() == Floor.NONE ? List.of() : measurePeers(backend, config, progress, meter);
        for (String strategy : strategies) {
            Counted txlock = counted(config, "txlock", "LockManager.acquire + release, LEASE scope",
                    workload -> runTxlock(backend, strategy, workload, config, progress, meter));
            Counted floor = switch (floor()) {
                case NONE -> null;
                case CYCLE -> measureFloor(backend, strategy, config, progress, meter);
                case BLOCKING -> handoffFloor(backend, strategy, config, progress, meter, handoffFloors);
            };
            List<String> failures = new ArrayList<>();
            check("txlock", txlock, failures);
            if (floor != null) {
                check("floor", floor, failures);
            }
            KillReport kill = txlock.outcome().kill();
            if (kill != null && !kill.recovered()) {
                failures.add("after the kill: " + kill.describe());
            }
            List<Measurement> ms = new ArrayList<>(List.of(txlock.measurement()));
            List<Target> targets = new ArrayList<>();
            if (floor != null) {
                ms.add(floor.measurement());
                targets.add(ratio(txlock.measurement(), floor.measurement(), backend));
            }
            Counted safe = floor() == Floor.BLOCKING ? safeHandoffFloor(backend, strategy, config, progress, meter, handoffFloors) : null;
            if (safe != null) {
                check(SAFE_FLOOR, safe, failures);
                ms.add(safe.measurement());
            }
            ms.addAll(peers);
            targets.addAll(PeerComparison.targets(id(), backend.kind(), strategy, txlock.measurement(), peers));
            results.add(new ScenarioResult(backend.kind().cliName(), strategy, id(), settings(config), ms, targets, kill, failures));
        }
        return results;
    }

    /** Runs one way's workers with fresh shared counters, and measures them with the updates they lost. */
    private Counted counted(BenchConfig config, String way, String describe, Workers workers) throws Exception {
        Path counters = Files.createTempFile("txlock-bench-counters-", ".bin");
        try {
            ClusterOutcome outcome = workers.run(workload(config, counters));
            Measurement measurement = Measurement.ofLocks(way, describe, outcome, workers(config));
            LostUpdates lost = LostUpdates.count(outcome.sections(), readCounters(counters), outcome.kill());
            lost.addTo(measurement.counts());
            return new Counted(outcome, measurement, lost);
        } finally {
            Files.deleteIfExists(counters);
        }
    }

    LockWorkload workload(BenchConfig config, Path counters) {
        return new LockWorkload(id(), names(config), config.hold(), counters, config.waitTime(), config.lease());
    }

    String settings(BenchConfig config) {
        int workers = workers(config);
        String where = config.processes() > 0
                ? Math.min(config.processes(), workers) + " worker JVMs" + (config.killHolder() ? ", one killed with kill -9 halfway" : "")
                : "threads on " + config.nodesFor(workers) + " nodes";
        return workers + " workers (" + where + "), " + names(config) + (names(config) == 1 ? " name" : " names") + ", hold "
                + config.hold().toNanos() / 1000 + " µs, a shared counter per name in a file";
    }

    private ClusterOutcome runTxlock(Backend backend, String strategy, LockWorkload workload, BenchConfig config,
            Progress progress, CostMeter meter) throws Exception {
        int workers = workers(config);
        progress.phase(label(backend, strategy, "txlock"), config.timing().totalNanos());
        if (config.processes() > 0) {
            return ProcessCluster.run(backend, strategy, workload, workers, config.processes(), config.timing(),
                    config.killHolder(), progress, meter);
        }
        try (Site site = backend.openSite(strategy, config.nodesFor(workers))) {
            return ThreadCluster.run(workers, w -> Locker.txlock(site.nodeOf(w), workload), workload, config.timing(), progress,
                    meter);
        }
    }

    /**
     * The backend's own blocking handoff for {@code strategy}, measured once per kind of lock (a row lock, an advisory
     * lock) and shared by the strategies whose floor it is.
     */
    private Counted handoffFloor(Backend backend, String strategy, BenchConfig config, Progress progress, CostMeter meter,
            Map<String, Counted> measured) throws Exception {
        return measuredOnce(backend, strategy, measured, RawLocks::describeHandoff,
                raw -> measureFloor(raw, backend, strategy, config, progress, meter));
    }

    /**
     * The backend's bare lock cycle, polling every 1 ms, measured on the handoff workload where the backend's blocking
     * handoff is no safe lock ({@link RawLocks#safeHandoffFloor()}); once per backend, like the handoff floor.
     */
    private Counted safeHandoffFloor(Backend backend, String strategy, BenchConfig config, Progress progress, CostMeter meter,
            Map<String, Counted> measured) throws Exception {
        return measuredOnce(backend, strategy, measured, raw -> raw.safeHandoffFloor() ? SAFE_FLOOR + ": " + raw.describeCycle() : null,
                raw -> measureRaw(raw, SAFE_FLOOR, raw.describeCycle() + ", retried after 1 ms while held", raw::cycleSession,
                        label(backend, "", SAFE_FLOOR), config, progress, meter));
    }

    /** Measures a backend's raw locks opened for one strategy. */
    @FunctionalInterface
    private interface RawMeasure {
        Counted on(RawLocks raw) throws Exception;
    }

    /**
     * @param kindOf the kind of what {@code measure} measures on the raw locks, shared by the strategies that have it;
     *     null where they have nothing to measure
     * @return the measurement of that kind, taken once per kind and kept in {@code measured}; null if the backend has no
     *     raw locks for the strategy, or nothing of the kind
     */
    private static Counted measuredOnce(Backend backend, String strategy, Map<String, Counted> measured,
            java.util.function.Function<RawLocks, String> kindOf, RawMeasure measure) throws Exception {
        Optional<RawLocks> opened = backend.openRaw(strategy);
        if (opened.isEmpty()) {
            return null;
        }
        try (RawLocks raw = opened.get()) {
            String kind = kindOf.apply(raw);
            if (kind == null) {
                return null;
            }
            Counted counted = measured.get(kind);
            if (counted == null) {
                counted = measure.on(raw);
                measured.put(kind, counted);
            }
            return counted;
        }
    }

    private Counted measureFloor(Backend backend, String strategy, BenchConfig config, Progress progress, CostMeter meter)
            throws Exception {
        Optional<RawLocks> opened = backend.openRaw(strategy);
        if (opened.isEmpty()) {
            return null;
        }
        try (RawLocks raw = opened.get()) {
            return measureFloor(raw, backend, strategy, config, progress, meter);
        }
    }

    private Counted measureFloor(RawLocks raw, Backend backend, String strategy, BenchConfig config, Progress progress,
            CostMeter meter) throws Exception {
        boolean blocking = floor() == Floor.BLOCKING;
        return measureRaw(raw, "floor", blocking ? raw.describeHandoff() : raw.describeCycle(),
                blocking ? raw::blockingSession : raw::cycleSession, label(backend, blocking ? "" : strategy, "floor"), config,
                progress, meter);
    }

    /** Opens a session of a backend's raw locks. */
    @FunctionalInterface
    private interface RawSessions {
        RawLocks.Session open() throws Exception;
    }

    /** Runs the workers on sessions of the raw locks, without txlock, as {@code way}. */
    private Counted measureRaw(RawLocks raw, String way, String describe, RawSessions sessions, String phase, BenchConfig config,
            Progress progress, CostMeter meter) throws Exception {
        return counted(config, way, describe, workload -> {
            raw.prepare(workload.allNames());
            progress.phase(phase, config.timing().totalNanos());
            return ThreadCluster.run(workers(config), w -> Locker.raw(sessions.open()), workload, config.timing(), progress, meter);
        });
    }

    /**
     * Runs the backend's peers once, on the same workload as txlock: as many nodes, each worker on its node's client.
     * A peer's checker findings and lost updates are noted as its own ("violation: …"), not as txlock failures.
     */
    private List<Measurement> measurePeers(Backend backend, BenchConfig config, Progress progress, CostMeter meter)
            throws Exception {
        List<Measurement> measured = new ArrayList<>();
        int workers = workers(config);
        for (Peer peer : backend.peers()) {
            Counted run = counted(config, peer.name(), peer.describe(), workload -> {
                progress.phase(label(backend, "", peer.name()), config.timing().totalNanos());
                try (Peer.Nodes nodes = peer.open(config.nodesFor(workers), workload)) {
                    return ThreadCluster.run(workers, nodes::locker, workload, config.timing(), progress, meter);
                }
            });
            List<String> violations = new ArrayList<>();
            check(peer.name(), run, violations);
            violations.forEach(v -> run.measurement().notes().add(PEER_VIOLATION + v));
            measured.add(run.measurement());
        }
        return measured;
    }

    /** The way of the handoff scenario's second yardstick, see {@link RawLocks#safeHandoffFloor()}. */
    static final String SAFE_FLOOR = "safe floor";

    /** How a peer's own safety finding starts among its notes. */
    static final String PEER_VIOLATION = "violation: ";

    private String label(Backend backend, String strategy, String way) {
        return backend.kind().cliName() + (strategy.isEmpty() ? "" : " " + strategy) + " · " + id() + " · " + way;
    }

    private static void check(String way, Counted run, List<String> failures) {
        Checker.Verdict verdict = run.measurement().verdict();
        if (!verdict.passed()) {
            failures.add(way + ": checker " + verdict.summary());
            verdict.examples().forEach(e -> failures.add(way + ": " + e));
        }
        if (run.lost().failure(way) != null) {
            failures.add(run.lost().failure(way));
        }
    }

    private static FileCounters.Total readCounters(Path file) {
        try (FileCounters c = new FileCounters(file)) {
            return c.total();
        }
    }
}
