package io.txlock.redis.modulepath;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.LockManager;
import io.txlock.redis.RedisLockProvider;
import java.io.File;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The Redis provider is the named module io.txlock.redis: it exports its one package, and a JVM with it, txlock,
 * txlock-sql, SLF4J and Jedis on the module path (Jedis' own dependencies on the class path) locks on the shared
 * Redis. The tests themselves run on the class path.
 */
@Timeout(120)
class RedisModulePathTest {

    @TempDir
    Path dir;

    @Test
    void exportsItsProviderPackageOnlyAndNeedsTxlockAndJedis() throws Exception {
        ModuleDescriptor redis = ModuleFinder.of(location(RedisLockProvider.class)).findAll().iterator().next()
                .descriptor();

        assertThat(redis.name()).isEqualTo("io.txlock.redis");
        assertThat(redis.isAutomatic()).isFalse();
        assertThat(redis.exports()).map(ModuleDescriptor.Exports::toString).containsExactly("io.txlock.redis");
        assertThat(redis.requires().stream()
                .filter(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE))
                .map(ModuleDescriptor.Requires::name)).containsExactlyInAnyOrder("io.txlock", "redis.clients.jedis");
    }

    @Test
    void theProviderLocksFromTheModulePath() throws Exception {
        List<Path> modules = List.of(location(RedisLockProvider.class), location(LockManager.class),
                location(Logger.class), location(Jedis.class), sqlModule());
        List<String> rest = new ArrayList<>(Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator)));
        rest.removeIf(entry -> modules.contains(Path.of(entry).toAbsolutePath()));
        String redis = System.getProperty("txlock.test.redis", "127.0.0.1:6379");
        String prefix = "txlock-test:modulepath-" + UUID.randomUUID() + ":";
        Path output = dir.resolve("child.out");
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--module-path", String.join(File.pathSeparator, modules.stream().map(Path::toString).toList()),
                "--add-modules", "io.txlock.redis", "-cp", String.join(File.pathSeparator, rest), "-Xmx128m",
                "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                RedisModulePathMain.class.getName(), redis, prefix);
        Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        boolean ended;
        try {
            ended = child.waitFor(90, TimeUnit.SECONDS);
            if (!ended) {
                child.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        } finally {
            deleteKeys(HostAndPort.from(redis), prefix);
        }
        String out = Files.readString(output, StandardCharsets.UTF_8);
        assertThat(ended).as("child ended within 90 s; output:%n%s", out).isTrue();
        assertThat(child.exitValue()).as("child's exit status; output:%n%s", out).isZero();
        assertThat(out).as("child's output").containsPattern("OK io\\.txlock\\.redis [1-9][0-9]*");
    }

    private static void deleteKeys(HostAndPort redis, String prefix) {
        try (Jedis jedis = new Jedis(redis)) {
            ScanParams mine = new ScanParams().match(prefix + "*");
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page = jedis.scan(cursor, mine);
                page.getResult().forEach(jedis::del);
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        }
    }

    private static Path sqlModule() {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator)).map(Path::of)
                .filter(p -> p.endsWith(Path.of("sql", "target", "classes"))
                        || p.getFileName().toString().startsWith("txlock-sql-"))
                .map(Path::toAbsolutePath).findFirst().orElseThrow(() -> new AssertionError("no txlock-sql on the class path"));
    }

    private static Path location(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toAbsolutePath();
    }
}
