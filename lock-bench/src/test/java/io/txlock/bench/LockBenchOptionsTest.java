package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class LockBenchOptionsTest {

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return LockBench.execute(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void readsDurationsAsPeopleWriteThem() {
        LockBench.DurationConverter convert = new LockBench.DurationConverter();

        assertThat(convert.convert("2s")).isEqualTo(Duration.ofSeconds(2));
        assertThat(convert.convert("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(convert.convert("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(convert.convert("250us")).isEqualTo(Duration.ofNanos(250_000));
        assertThat(convert.convert("1m")).isEqualTo(Duration.ofMinutes(1));
        assertThat(convert.convert("PT3S")).isEqualTo(Duration.ofSeconds(3));
        assertThat(convert.convert("7")).isEqualTo(Duration.ofSeconds(7));
        assertThatThrownBy(() -> convert.convert("soon")).isInstanceOf(CommandLine.TypeConversionException.class)
                .hasMessageContaining("2s, 500ms");
    }

    @Test
    void refusesAKillWithoutWorkerJvmsToKill() {
        assertThat(run("--kill-holder")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--processes");
    }

    @Test
    void refusesOneJdbcUrlForTwoDatabases() {
        assertThat(run("--backend", "postgresql,mariadb", "--jdbc-url", "jdbc:postgresql://db/app")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("exactly one JDBC backend");
    }

    @Test
    void namesTheValidChoicesOfABadBackendStrategyOrScenario() {
        assertThat(run("--backend", "oracle")).isEqualTo(2);
        assertThat(run("--strategy", "PESSIMISTIC")).isEqualTo(2);
        assertThat(run("--scenarios", "bank")).isEqualTo(2);

        assertThat(err.toString(StandardCharsets.UTF_8)).contains("h2, postgresql, mariadb, mysql, redis, zookeeper, none")
                .contains("SELECT_FOR_UPDATE, OPTIMISTIC_VERSION, UNIQUE_INSERT").contains("[orders, counter, keys, handoff]");
    }
}
