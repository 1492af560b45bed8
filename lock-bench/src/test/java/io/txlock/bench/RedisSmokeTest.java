package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The lock scenarios on the machine's Redis (127.0.0.1:6379, or {@code -Dtxlock.test.redis}) pass the checker,
 * under a random key prefix that the backend deletes afterwards.
 */
class RedisSmokeTest {

    @Test
    void lockScenariosPassTheCheckerAndMeasureTheFloor() {
        BenchConfig quick = Configs.quick(BackendKind.REDIS, List.of(), List.of("counter", "keys", "handoff"));
        BackendSpec redis = BackendSpec.defaults(BackendKind.REDIS).at(System.getProperty("txlock.test.redis", "127.0.0.1:6379"));
        BenchConfig config = new BenchConfig(List.of(redis), quick.strategies(), quick.scenarios(), quick.timing(), quick.workers(),
                quick.handoffWorkers(), quick.clients(), quick.keys(), quick.duplicates(), quick.hold(), quick.nodes(),
                quick.processes(), quick.killHolder(), quick.waitTime(), quick.lease(), quick.retries(), quick.report(), false);

        BenchReport report = BenchRun.run(config, "test", Progress.silent());

        assertThat(report.errors()).isEmpty();
        assertThat(report.results()).hasSize(3).allSatisfy(r -> {
            assertThat(r.strategy()).isEqualTo(RedisBackend.STRATEGY);
            assertThat(r.failures()).as(r.scenario()).isEmpty();
            assertThat(r.way("txlock").verdict().sections()).as(r.scenario()).isPositive();
        });
        assertThat(report.results().get(0).way("txlock").count("lost updates")).isZero();
        assertThat(report.results().get(0).peers()).as("counter has no yardstick").isEmpty();
        assertThat(report.results().get(2).way("floor").describe()).contains("BLPOP");
        assertThat(report.results().get(2).way("floor").verdict().sections()).isPositive();
        Measurement safe = report.results().get(2).way(LockScenario.SAFE_FLOOR);
        assertThat(safe.describe()).as("the handoff's safe floor").contains("SET NX PX");
        assertThat(safe.verdict().sections()).isPositive();
        assertThat(report.results().get(1).way(LockScenario.SAFE_FLOOR)).as("keys' floor is that cycle already").isNull();
        assertThat(report.results().subList(1, 3)).allSatisfy(r -> assertThat(r.peers()).singleElement().satisfies(p -> {
            assertThat(p.way()).isEqualTo(RedissonPeer.NAME);
            assertThat(p.verdict().passed()).isTrue();
            assertThat(p.verdict().sections()).isPositive();
            assertThat(p.count("lost updates")).isZero();
        }));
    }
}
