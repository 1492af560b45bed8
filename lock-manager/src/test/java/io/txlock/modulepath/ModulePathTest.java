package io.txlock.modulepath;

import static io.txlock.modulepath.ClassPathEntries.directory;
import static io.txlock.modulepath.ClassPathEntries.jar;
import static io.txlock.modulepath.ClassPathEntries.jarOrDirectory;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * txlock is a named module, io.txlock: a JVM with it on the module path next to the modules it needs at run time
 * (SLF4J and txlock-sql's DDL, io.txlock.sql, which it requires) and the entity module, without Jakarta EE, JPA or
 * Micrometer, resolves it and locks on H2 with the table made from the DDL it reads from io.txlock.sql. The tests
 * themselves run on the class path.
 */
@Timeout(120)
class ModulePathTest {

    @TempDir
    Path dir;

    @Test
    void txlockResolvesAsTheNamedModuleIoTxlockAndLocks() throws Exception {
        List<String> modules = List.of(jarOrDirectory("txlock-lock-manager", "lock-manager/target/classes"),
                jarOrDirectory("txlock-jpa-entities", "jpa-entities/target/classes"),
                jarOrDirectory("txlock-sql", "sql/target/classes"), jar("slf4j-api"));
        List<String> rest = List.of(directory("lock-manager/target/test-classes"), jar("h2"));
        Path output = dir.resolve("child.out");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--module-path", String.join(File.pathSeparator, modules), "--add-modules", "io.txlock",
                "-cp", String.join(File.pathSeparator, rest), "-Xmx128m", "-XX:TieredStopAtLevel=1",
                ModulePathMain.class.getName()));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        boolean ended = child.waitFor(90, TimeUnit.SECONDS);
        if (!ended) {
            child.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        String out = Files.readString(output, StandardCharsets.UTF_8);
        assertThat(ended).as("child ended within 90 s; output:%n%s", out).isTrue();
        assertThat(child.exitValue()).as("child's exit status; output:%n%s", out).isZero();
        assertThat(out).as("child's output").containsPattern("OK io\\.txlock [1-9][0-9]* core exported: false");
    }
}
