package io.txlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.LockHandle;
import io.txlock.LockInfo;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.spi.TransactionSupport;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A holder JVM killed with SIGKILL: its session, and with it its lock, ends after the session timeout. */
class HolderKilledTest {

    private static final Duration SLACK = Duration.ofSeconds(15);

    private TestingServer server;
    private LockManager survivor;
    private Process holder;

    @BeforeEach
    void start() throws Exception {
        server = ZooKeeperTesting.server();
    }

    @AfterEach
    void stop() throws Exception {
        if (holder != null) {
            holder.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        if (survivor != null) {
            survivor.close();
        }
        server.close();
    }

    @Test
    void lockOfAKilledHolderPassesOnWithAHigherTokenOnceItsSessionExpires() throws Exception {
        String config = ZooKeeperProviderFactory.config(server.getConnectString(), ZooKeeperTesting.randomBasePath(),
                ZooKeeperTesting.SESSION_TIMEOUT_MS);
        String name = "job:nightly report";
        holder = startHolder(config, name);
        String[] held = awaitHeld(holder);
        long deadToken = Long.parseLong(held[1]);

        survivor = LockManager.builder(new ZooKeeperProviderFactory().create(config)).transactions(TransactionSupport.none()).build();
        LockInfo info = survivor.inspect(name).orElseThrow();
        assertThat(info.fencingToken()).isEqualTo(deadToken);
        assertThat(info.ownerId()).startsWith(held[2] + "/");
        assertThat(survivor.tryAcquire(name)).isEmpty();

        holder.destroyForcibly();
        assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(holder.exitValue()).as("killed, not exited").isNotZero();

        long start = System.nanoTime();
        try (LockHandle taken = survivor.acquire(name, LockOptions.defaults()
                .withWait(Duration.ofMillis(ZooKeeperTesting.SESSION_TIMEOUT_MS).plus(SLACK)))) {
            assertThat(taken.fencingToken()).isGreaterThan(deadToken);
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .isLessThan(Duration.ofMillis(ZooKeeperTesting.SESSION_TIMEOUT_MS).plus(SLACK));
        }
    }

    private static Process startHolder(String config, String name) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        File log = new File("target/holder-process-" + ProcessHandle.current().pid() + ".log");
        return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "-Xmx64m",
                HolderProcess.class.getName(), ZooKeeperProviderFactory.class.getName(), config, name)
                .redirectError(ProcessBuilder.Redirect.appendTo(log))
                .start();
    }

    /** @return {"HELD", token, instance id}, as the child printed them */
    private static String[] awaitHeld(Process process) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line = CompletableFuture.supplyAsync(() -> {
            try {
                String l;
                while ((l = out.readLine()) != null) {
                    if (l.startsWith("HELD ")) {
                        return l;
                    }
                }
                return null;
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }).get(60, TimeUnit.SECONDS);
        assertThat(line).as("the child JVM took the lock (see target/holder-process-*.log if not)").isNotNull();
        return line.split(" ");
    }
}
