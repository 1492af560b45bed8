package io.txlock.modulepath;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * txlock is a named module, io.txlock: a JVM with it on the module path next to the only module it needs at run
 * time (SLF4J) and the entity module, without Jakarta EE, JPA or Micrometer, resolves it and locks on H2 with the
 * table made from txlock-sql's DDL (on the class path). The tests themselves run on the class path.
 */
@Timeout(120)
class ModulePathTest {

    @TempDir
    Path dir;

    @Test
    void txlockResolvesAsTheNamedModuleIoTxlockAndLocks() throws Exception {
        List<String> classPath = Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator));
        List<String> modules = List.of(one(classPath, e -> e.endsWith(slash("lock-manager/target/classes"))),
                one(classPath, e -> e.contains("txlock-jpa-entities") || e.endsWith(slash("jpa-entities/target/classes"))),
                one(classPath, e -> e.contains("slf4j-api")));
        List<String> rest = List.of(one(classPath, e -> e.endsWith(slash("lock-manager/target/test-classes"))),
                one(classPath, e -> e.contains("txlock-sql") || e.endsWith(slash("sql/target/classes"))),
                one(classPath, e -> e.contains(slash("com/h2database/h2"))));
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
        assertThat(out).as("child's output").containsPattern("OK io\\.txlock [1-9][0-9]*");
    }

    private static String slash(String path) {
        return path.replace('/', File.separatorChar);
    }

    private static String one(List<String> classPath, Predicate<String> which) {
        List<String> found = classPath.stream().filter(which).toList();
        assertThat(found).as("class path entries of one kind in %s", classPath).hasSize(1);
        return found.get(0);
    }
}
