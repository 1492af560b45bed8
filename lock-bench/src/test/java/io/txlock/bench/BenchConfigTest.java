package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * What {@link BenchConfig#connections()} sizes a backend's pool for: the order clients when {@code orders} runs,
 * two connections per thread lock worker, one per worker for the floor's sessions, and four spare.
 */
class BenchConfigTest {

    /** The configuration a command line asks for, without running anything. */
    private static BenchConfig config(String... args) {
        LockBench bench = new LockBench(System.out, System.err, args);
        new CommandLine(bench).parseArgs(args);
        return bench.config();
    }

    @Test
    void withOrdersThePoolCoversEveryClient() {
        assertThat(config().connections()).as("the defaults: 64 clients, 8 workers").isEqualTo(64 + 4);
        assertThat(config("--scenarios", "orders", "--clients", "100", "--workers", "8").connections()).isEqualTo(100 + 4);
        assertThat(config("--scenarios", "counter, Orders", "--clients", "30", "--workers", "2", "--handoff-workers", "3")
                .connections()).as("orders named in any case, among other scenarios").isEqualTo(30 + 4);
        assertThat(config("--scenarios", "orders,handoff", "--clients", "4", "--workers", "8", "--handoff-workers", "10").connections())
                .as("fewer clients than the lock workers need: two per worker of the largest lock run").isEqualTo(2 * 10 + 4);
    }

    @Test
    void withoutOrdersTheLockWorkersAloneSizeThePool() {
        assertThat(config("--scenarios", "counter,keys,handoff", "--clients", "64", "--workers", "8", "--handoff-workers", "8")
                .connections()).isEqualTo(2 * 8 + 4);
        assertThat(config("--scenarios", "keys", "--clients", "500", "--workers", "3", "--handoff-workers", "6").connections())
                .as("the largest lock run, whether it runs or not").isEqualTo(2 * 6 + 4);
        assertThat(config("--scenarios", "counter", "--clients", "1000").connections())
                .as("--clients does not matter without orders").isEqualTo(config("--scenarios", "counter", "--clients", "1").connections())
                .isEqualTo(2 * 8 + 4);
    }

    @Test
    void withWorkerJvmsTheThreadWorkersShareIsZero() {
        assertThat(config("--scenarios", "counter,handoff", "--processes", "4", "--workers", "8", "--handoff-workers", "6",
                "--clients", "64").connections()).as("the floor's sessions only, one per worker of the largest lock run").isEqualTo(8 + 4);
        assertThat(config("--scenarios", "orders,counter", "--processes", "4", "--clients", "64", "--workers", "8").connections())
                .as("orders always run as threads of this JVM").isEqualTo(64 + 4);
        assertThat(config("--processes", "2", "--clients", "2", "--workers", "8", "--handoff-workers", "8").connections())
                .isEqualTo(8 + 4);
    }

    @Test
    void rowLocksHaveAPoolOfTheirOwnSizedByTheLockWorkers() {
        assertThat(config("--clients", "64", "--workers", "8", "--handoff-workers", "5").rowLockConnections()).isEqualTo(8 + 2);
        assertThat(config("--scenarios", "orders", "--clients", "64", "--workers", "3", "--handoff-workers", "5").rowLockConnections())
                .as("order clients take no LEASE row locks").isEqualTo(5 + 2);
    }
}
