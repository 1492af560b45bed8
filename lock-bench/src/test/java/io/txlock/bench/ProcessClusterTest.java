package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Workers in separate JVMs, one of them killed with kill -9 while it holds the lock. */
class ProcessClusterTest {

    @Test
    void aKilledHoldersLockComesBackWithAGreaterTokenAndNoUpdateIsLost() throws Exception {
        Duration lease = Duration.ofSeconds(1);
        BenchConfig config = Configs.inProcesses(Configs.quick(BackendKind.H2, List.of("OPTIMISTIC_VERSION"), List.of("counter")),
                2, true, lease);

        List<ScenarioResult> results;
        try (Backend h2 = Backends.open(BackendSpec.defaults(BackendKind.H2), config.connections(), true, lease)) {
            results = new CounterScenario().run(h2, List.of("OPTIMISTIC_VERSION"), config, Progress.silent());
        }

        ScenarioResult result = results.get(0);
        assertThat(result.failures()).isEmpty();
        KillReport kill = result.kill();
        assertThat(kill).isNotNull();
        assertThat(kill.recovered()).isTrue();
        assertThat(kill.nextToken()).isGreaterThan(kill.token());
        assertThat(kill.recoveredAfterMillis()).as("the lease outlives the dead holder, and not by much more")
                .isGreaterThan(0).isLessThan(lease.toMillis() + 5_000);
        Measurement txlock = result.way("txlock");
        assertThat(txlock.verdict().sections()).isPositive();
        assertThat(txlock.count("lost updates")).isZero();
        assertThat(result.settings()).contains("2 worker JVMs");
    }
}
