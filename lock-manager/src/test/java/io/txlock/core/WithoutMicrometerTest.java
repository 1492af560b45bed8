package io.txlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Micrometer is optional: a JVM whose class path has none of it (no micrometer-core, -commons, -observation, nor
 * their HdrHistogram and LatencyUtils) builds managers with the public builder and locks on H2 and on the kit's
 * lock files (see {@link WithoutMicrometerMain}), and never loads txlock's Micrometer package. The child is started
 * as the kit's {@code ChildJvm} starts its workers: this JVM's java, this test's class path less Micrometer.
 */
@Timeout(120)
class WithoutMicrometerTest {

    private static final List<String> MICROMETER = List.of("/io/micrometer/", "/org/hdrhistogram/", "/org/latencyutils/",
            "micrometer-", "HdrHistogram", "LatencyUtils");

    @TempDir
    Path dir;

    @Test
    void aManagerBuildsAndLocksWithMicrometerAbsentFromTheClassPath() throws Exception {
        List<String> full = Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator));
        List<String> without = full.stream().filter(e -> MICROMETER.stream().noneMatch(e.replace('\\', '/')::contains))
                .toList();
        assertThat(full.stream().filter(e -> e.contains("micrometer-core")))
                .as("micrometer-core on the test's own class path, to be left out of the child's").isNotEmpty();
        assertThat(without).as("child class path").noneMatch(e -> e.contains("micrometer"));

        Path classLog = dir.resolve("classes.log");
        Path output = dir.resolve("child.out");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", String.join(File.pathSeparator, without),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Xlog:class+load=info:file=" + classLog,
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                WithoutMicrometerMain.class.getName(), dir.resolve("locks").toString()));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        boolean ended = child.waitFor(90, TimeUnit.SECONDS);
        if (!ended) {
            child.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        String out = read(output);
        assertThat(ended).as("child ended within 90 s; output:%n%s", out).isTrue();
        assertThat(child.exitValue()).as("child's exit status; output:%n%s", out).isZero();
        assertThat(out).as("child's output").contains("OK");

        List<String> loaded = Files.readAllLines(classLog, StandardCharsets.UTF_8).stream()
                .map(line -> line.replaceAll("^.*\\]\\s*", "").split(" ")[0]).collect(Collectors.toList());
        assertThat(loaded).as("classes the child loaded")
                .contains("io.txlock.LockManager$Builder", "io.txlock.core.CoreLockManager", "io.txlock.LockMetrics$None")
                .noneMatch(c -> c.startsWith("io.txlock.micrometer."))
                .noneMatch(c -> c.startsWith("io.micrometer."));
    }

    private static String read(Path file) throws IOException {
        return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "(no output)";
    }
}
