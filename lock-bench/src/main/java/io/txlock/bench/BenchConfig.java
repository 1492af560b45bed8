package io.txlock.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Everything a bench run was asked to do.
 *
 * @param backends the backends, in order
 * @param strategies the strategies to run on each backend, or empty for all it offers
 * @param scenarios the scenario ids, in order
 * @param timing warm-up and measured window of every measured run
 * @param workers workers of the counter and many-keys scenarios
 * @param handoffWorkers workers of the contention scenario, all on one name
 * @param clients concurrent clients of the order idempotency scenario
 * @param keys lock names of the many-keys scenario
 * @param duplicates share of order submissions that repeat a recent order
 * @param hold time spent inside each critical section
 * @param nodes lock managers the thread workers are spread over; 0 gives every worker its own
 * @param processes worker JVMs for the lock scenarios; 0 runs workers as threads of this JVM
 * @param killHolder with processes: kill -9 a worker JVM while it holds a lock, halfway through each lock scenario
 * @param waitTime how long an acquire may wait
 * @param lease the lease of LEASE-scoped locks
 * @param retries how often a failed order submission (deadlock, lock wait timeout) is retried
 * @param report the report folder, or null
 * @param jitWarmup before measuring a backend, run every scenario once briefly and unmeasured, so that the first
 *     measured runs do not pay for the JIT compiler (their safety is still checked)
 */
public record BenchConfig(List<BackendSpec> backends, List<String> strategies, List<String> scenarios, Timing timing,
        int workers, int handoffWorkers, int clients, int keys, double duplicates, Duration hold, int nodes, int processes,
        boolean killHolder, Duration waitTime, Duration lease, int retries, Path report, boolean jitWarmup) {

    /** @return the same settings with short runs, for the JIT warm-up: no warm-up of their own, a window as long as it */
    public BenchConfig forJitWarmup() {
        return new BenchConfig(backends, strategies, scenarios, new Timing(Duration.ZERO, timing.warmup()), workers, handoffWorkers,
                clients, keys, duplicates, hold, nodes, 0, false, waitTime, lease, retries, null, false);
    }

    /**
     * @param workers workers of a run
     * @return how many nodes (lock managers) they are spread over
     */
    public int nodesFor(int workers) {
        return nodes <= 0 ? workers : Math.min(nodes, workers);
    }

    /**
     * @return the connections a backend needs for the largest run in this JVM: one per order client (when orders
     *     run), two per lock worker (a LEASE row lock keeps its connection while held), a few spare
     */
    public int connections() {
        int lockWorkers = processes > 0 ? 0 : 2 * Math.max(workers, handoffWorkers);
        int orderClients = scenarios.contains(OrdersScenario.ID) ? clients : 0;
        return Math.max(Math.max(orderClients, Math.max(workers, handoffWorkers)), lockWorkers) + 4;
    }

    /** @return the connections LEASE row locks (SELECT_FOR_UPDATE) of this JVM's lock workers hold at most, a few spare */
    public int rowLockConnections() {
        return Math.max(workers, handoffWorkers) + 2;
    }
}
