package io.txlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.spring.plain.PlainApplication;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The starter's Micrometer and Actuator dependencies are optional: an application without them (here a JVM whose
 * class path lacks micrometer-core and Actuator) starts, and its locks end with its transactions.
 */
class WithoutMetricsAndActuatorTest {

    private static final List<String> LEFT_OUT = List.of("micrometer-core", "micrometer-jakarta9", "spring-boot-actuator",
            "spring-boot-starter-actuator");

    @Test
    void anApplicationWithoutMicrometerAndActuatorStartsAndLocks() throws Exception {
        List<Path> classPath = classPath();
        assertThat(classPath).as("the test's class path has them to leave out")
                .anyMatch(p -> p.getFileName().toString().startsWith("micrometer-core"));
        String without = classPath.stream()
                .filter(p -> LEFT_OUT.stream().noneMatch(p.getFileName().toString()::startsWith))
                .map(Path::toString).collect(Collectors.joining(File.pathSeparator));
        try (AppJvm app = AppJvm.start("plain", PlainApplication.class, without, List.of(
                "--spring.datasource.url=jdbc:h2:mem:plain;DB_CLOSE_DELAY=-1", "--txlock.create-table=true",
                "--" + StarterTest.WITHOUT_JPA, "--spring.main.banner-mode=off", "--logging.level.root=WARN"))) {
            assertThat(app.expect("RESULT", Duration.ofMinutes(3)))
                    .isEqualTo("RESULT micrometer=false actuator=false managers=1 scope=TRANSACTION");
            app.awaitSuccess(Duration.ofMinutes(1));
        }
    }

    /** @return this JVM's class path, with Surefire's manifest-only jar expanded */
    private static List<Path> classPath() throws IOException {
        List<Path> entries = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path path = Path.of(entry);
            String manifestClassPath = null;
            if (entry.endsWith(".jar") && path.getFileName().toString().startsWith("surefirebooter")) {
                try (JarFile jar = new JarFile(entry)) {
                    Manifest manifest = jar.getManifest();
                    manifestClassPath = manifest == null ? null : manifest.getMainAttributes().getValue("Class-Path");
                }
            }
            if (manifestClassPath == null) {
                entries.add(path);
                continue;
            }
            for (String url : manifestClassPath.trim().split("\\s+")) {
                entries.add(url.startsWith("file:") ? Path.of(URI.create(url)) : path.resolveSibling(url).normalize());
            }
        }
        return entries;
    }
}
