package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.LockBackendException;
import io.txlock.LockInfo;
import io.txlock.spi.Attempt;
import io.txlock.spi.Grant;
import io.txlock.spi.LockProvider;
import io.txlock.spi.LockRequest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The checker must fail a run whose lock does not lock, and one whose tokens go backwards; a run whose lock never
 * grants must not read as passed.
 */
class BrokenLockTest {

    private static final Duration HOLD = Duration.ofMillis(1);

    @Test
    void aRunWithoutAnyLockFailsWithOverlapsAndLostUpdates() throws Exception {
        BenchConfig config = Configs.withHold(Configs.quick(BackendKind.NONE, List.of(), List.of("counter")), HOLD);

        List<ScenarioResult> results;
        try (Backend none = new UnsafeBackend(config.connections())) {
            results = new CounterScenario().run(none, none.strategies(), config, Progress.silent());
        }

        ScenarioResult result = results.get(0);
        Measurement txlock = result.way("txlock");
        assertThat(result.passed()).isFalse();
        assertThat(txlock.verdict().overlaps()).isPositive();
        assertThat(txlock.count("lost updates")).isPositive();
        assertThat(result.failures()).anySatisfy(f -> assertThat(f).contains("overlap on 'counter'"));
        assertThat(result.failures()).anySatisfy(f -> assertThat(f).contains("lost updates"));
    }

    @Test
    void theCommandLineExitsWithOneAndSaysWhyForABrokenLock() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = LockBench.execute(new String[] {"--backend", "none", "--scenarios", "counter,orders", "--duration", "400ms",
                "--warmup", "100ms", "--workers", "4", "--clients", "8", "--hold", "1ms"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

        String printed = out.toString(StandardCharsets.UTF_8);
        assertThat(status).isEqualTo(1);
        assertThat(printed).contains("CHECKER FAILED").contains("overlaps").contains("lost updates")
                .contains("orders stored more than once");
    }

    @Test
    void anExclusiveLockWhoseTokensGoBackwardsFailsWithTokenRegressions() throws Exception {
        BenchConfig config = Configs.quick(BackendKind.NONE, List.of(), List.of("handoff"));

        List<ScenarioResult> results;
        try (Backend reversed = new ProviderBackend("REVERSED", new ReversedTokens(), config.connections())) {
            results = new HandoffScenario().run(reversed, reversed.strategies(), config, Progress.silent());
        }

        Measurement txlock = results.get(0).way("txlock");
        assertThat(txlock.ops()).isPositive();
        assertThat(txlock.verdict().overlaps()).isZero();
        assertThat(txlock.verdict().tokenRegressions()).isPositive();
        assertThat(results.get(0).passed()).isFalse();
    }

    /**
     * At hold 0 a section lasts a few hundred nanoseconds, too short for two holders' times to overlap often; the
     * shared counter of each name still loses the updates of holders that were inside at once.
     */
    @ParameterizedTest
    @ValueSource(strings = {"keys", "handoff"})
    void aLockThatDoesNotExcludeButHandsOutIncreasingTokensLosesUpdatesAtHoldZero(String scenario) throws Exception {
        BenchConfig config = Configs.withKeys(Configs.quick(BackendKind.NONE, List.of(), List.of(scenario)), 8);

        List<ScenarioResult> results;
        try (Backend shared = new ProviderBackend("INCREASING", new IncreasingTokens(), config.connections())) {
            results = BenchRun.scenario(scenario).run(shared, shared.strategies(), config, Progress.silent());
        }

        ScenarioResult result = results.get(0);
        Measurement txlock = result.way("txlock");
        assertThat(result.settings()).contains("hold 0 µs");
        assertThat(txlock.count("lost updates")).isPositive();
        assertThat(result.passed()).isFalse();
        assertThat(result.failures()).anySatisfy(f -> assertThat(f).startsWith("txlock: ").contains("lost updates"));
    }

    @Test
    void aLockThatNeverGrantsProvesNothingAndSaysSo() throws Exception {
        BenchConfig config = Configs.quick(BackendKind.NONE, List.of(), List.of("counter"));

        List<ScenarioResult> results;
        try (Backend down = new ProviderBackend("DOWN", new Unreachable(), config.connections())) {
            results = new CounterScenario().run(down, down.strategies(), config, Progress.silent());
        }

        ScenarioResult result = results.get(0);
        assertThat(result.way("txlock").ops()).isZero();
        assertThat(result.way("txlock").count("errors")).isPositive();
        assertThat(result.passed()).as("nothing overlapped: the checker has nothing to fail").isTrue();
        assertThat(result.unproven()).contains("finished no operation in the measured window").contains("proves nothing");
    }

    /** A lock that does not exclude: every request is granted at once, with a token greater than any before. */
    private static final class IncreasingTokens implements LockProvider {
        private final AtomicLong tokens = new AtomicLong();

        @Override
        public String describe() {
            return "no exclusion, increasing tokens";
        }

        @Override
        public Attempt tryAcquire(LockRequest request) {
            return Attempt.granted(new SimpleGrant(request.name(), tokens.incrementAndGet()));
        }

        @Override
        public void renew(Grant grant, Duration lease) {
        }

        @Override
        public void release(Grant grant) {
        }

        @Override
        public Optional<LockInfo> inspect(String name) {
            return Optional.empty();
        }

        @Override
        public void close() {
        }
    }

    /** A backend that cannot be reached: every attempt fails. */
    private static final class Unreachable implements LockProvider {
        @Override
        public String describe() {
            return "unreachable";
        }

        @Override
        public Attempt tryAcquire(LockRequest request) {
            throw new LockBackendException("the backend is down", new java.net.ConnectException("Connection refused"));
        }

        @Override
        public void renew(Grant grant, Duration lease) {
        }

        @Override
        public void release(Grant grant) {
        }

        @Override
        public Optional<LockInfo> inspect(String name) {
            return Optional.empty();
        }

        @Override
        public void close() {
        }
    }

    /** A lock that excludes (one holder per name in this JVM) but hands out ever smaller tokens. */
    private static final class ReversedTokens implements LockProvider {
        private final ConcurrentHashMap<String, Grant> held = new ConcurrentHashMap<>();
        private final AtomicLong tokens = new AtomicLong(Long.MAX_VALUE / 2);

        @Override
        public String describe() {
            return "reversed tokens";
        }

        @Override
        public Attempt tryAcquire(LockRequest request) {
            Grant grant = new SimpleGrant(request.name(), tokens.decrementAndGet());
            return held.putIfAbsent(request.name(), grant) == null ? Attempt.granted(grant) : Attempt.heldFor(Duration.ZERO);
        }

        @Override
        public void renew(Grant grant, Duration lease) {
        }

        @Override
        public void release(Grant grant) {
            held.remove(grant.name(), grant);
        }

        @Override
        public Optional<LockInfo> inspect(String name) {
            return Optional.empty();
        }

        /** Not closed by each manager: shared by all of them. */
        @Override
        public void close() {
        }
    }

    private record SimpleGrant(String name, long fencingToken) implements Grant {
        @Override
        public boolean leased() {
            return false;
        }
    }
}
