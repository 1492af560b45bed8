package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line as the jar runs it ({@link LockBench#main} is {@code System.exit(LockBench.execute(…))}). */
class LockBenchCommandTest {

    /** A JDBC URL where nothing listens: the connection is refused at once. */
    private static final String NOBODY = "jdbc:postgresql://127.0.0.1:1/test";

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return LockBench.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String printed() {
        return out.toString(StandardCharsets.UTF_8);
    }

    /** The default command (embedded H2, every strategy and scenario, JIT warm-up), only with short windows. */
    @Test
    void theDefaultRunPassesEndToEnd(@TempDir Path report) throws Exception {
        int status = run("--duration", "1s", "--warmup", "200ms", "--report", report.toString());

        assertThat(status).as(printed()).isZero();
        assertThat(printed()).contains("h2: H2 ").contains("targets (docs/design.md)").contains("txlock/seed throughput")
                .contains("txlock deadlocks").contains("txlock/floor throughput").contains("txlock/floor handoff p99")
                .contains("SELECT_FOR_UPDATE").contains("OPTIMISTIC_VERSION").contains("UNIQUE_INSERT").contains("CLAIM")
                .contains("CHECKER PASSED").doesNotContain("\nERROR ").doesNotContain("\nFAILED ");
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("JIT warm-up");
        assertThat(Files.readString(report.resolve("results.json"))).contains("\"passed\": true").contains("\"checkerPassed\": true");
        assertThat(report.resolve("report.html")).exists();
        assertThat(Files.readString(report.resolve("report.md"))).contains("| backend | scenario | txlock (best strategy) |")
                .contains("| h2 | SELECT_FOR_UPDATE | ").contains("Checker passed on every run.");
    }

    @Test
    void aBackendThatCannotBeUsedExitsWithThreeAndDoesNotReadAsPassed() {
        int status = run("--backend", "postgresql", "--jdbc-url", NOBODY, "--scenarios", "counter", "--duration", "200ms");

        assertThat(status).isEqualTo(3);
        assertThat(printed()).contains("ERROR postgresql").contains("NOT PASSED").doesNotContain("CHECKER PASSED");
    }

    @Test
    void aTxlockRunWhoseAcquiresMostlyTimeOutExitsWithThree() {
        int status = run("--scenarios", "handoff", "--strategy", "SELECT_FOR_UPDATE", "--wait", "0ms", "--hold", "5ms",
                "--duration", "400ms", "--warmup", "100ms", "--no-jit-warmup");

        assertThat(status).isEqualTo(3);
        assertThat(printed()).contains("ERROR h2 SELECT_FOR_UPDATE handoff: txlock gave up more operations than it finished")
                .contains("NOT PASSED").doesNotContain("CHECKER PASSED").doesNotContain("CHECKER FAILED");
    }

    @Test
    void aCheckerFailureWinsOverABackendThatCouldNotBeUsed() {
        int status = run("--backend", "none,postgresql", "--jdbc-url", NOBODY, "--scenarios", "counter", "--duration", "400ms",
                "--warmup", "100ms", "--workers", "4", "--hold", "1ms", "--no-jit-warmup");

        assertThat(status).isEqualTo(1);
        assertThat(printed()).contains("ERROR postgresql").contains("CHECKER FAILED").contains("lost updates");
    }
}
