package io.txlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.spi.TransactionSupport;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A holder JVM stopped ({@code SIGSTOP}) for three session timeouts, while another holder is granted the lock: when
 * it resumes ({@code SIGCONT}) its handle must not say valid, whatever Curator has not told it yet.
 */
class PausedHolderTest {

    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private TestingServer server;
    private LockManager other;
    private Process holder;
    private final BlockingQueue<String> holderSays = new LinkedBlockingQueue<>();

    @BeforeEach
    void start() throws Exception {
        server = ZooKeeperTesting.server();
    }

    @AfterEach
    void stop() throws Exception {
        if (holder != null) {
            holder.destroyForcibly().waitFor(30, TimeUnit.SECONDS); // SIGKILL ends a stopped process too
        }
        if (other != null) {
            other.close();
        }
        server.close();
    }

    @Test
    void aHolderPausedPastItsSessionTimeoutIsNotValidWhenItResumes() throws Exception {
        int session = ZooKeeperTesting.SESSION_TIMEOUT_MS;
        String config = ZooKeeperProviderFactory.config(server.getConnectString(), ZooKeeperTesting.randomBasePath(), session);
        String name = "account:7";
        holder = startHolder(config, name, session);
        long pausedToken = Long.parseLong(expect("HELD ").split(" ")[1]);

        other = LockManager.builder(new ZooKeeperProviderFactory().create(config)).transactions(TransactionSupport.none()).build();
        assertThat(other.tryAcquire(name)).as("held by the child JVM").isEmpty();

        long stopped = System.nanoTime();
        signal("STOP");
        try (LockHandle taken = other.acquire(name, LockOptions.defaults().withWait(PATIENCE))) {
            assertThat(taken.fencingToken()).isGreaterThan(pausedToken);
            long pauseLeft = TimeUnit.MILLISECONDS.toNanos(3L * session) - (System.nanoTime() - stopped);
            if (pauseLeft > 0) {
                TimeUnit.NANOSECONDS.sleep(pauseLeft); // the fault: three session timeouts stopped in all
            }
            signal("CONT");

            assertThat(expect("RESUMED ")).as("the first isValid() of the resumed holder, while another holds the lock")
                    .startsWith("RESUMED valid=false");
            assertThat(expect("RELEASE")).startsWith("RELEASE LockNotHeldException");
            assertThat(taken.isValid()).isTrue();
        }
        assertThat(holder.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
    }

    private Process startHolder(String config, String name, int session) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        File log = new File("target/paused-holder-" + ProcessHandle.current().pid() + ".log");
        Process process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "-Xmx64m",
                PausedHolderProcess.class.getName(), ZooKeeperProviderFactory.class.getName(), config, name,
                Integer.toString(session))
                .redirectError(ProcessBuilder.Redirect.appendTo(log))
                .start();
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    holderSays.add(line);
                }
            } catch (java.io.IOException e) {
                // the process ended
            }
        }, "paused-holder-stdout");
        reader.setDaemon(true);
        reader.start();
        return process;
    }

    private String expect(String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            String line = holderSays.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            assertThat(line).as("the holder JVM printed '" + prefix + "…' (see target/paused-holder-*.log if not)").isNotNull();
            if (line.startsWith(prefix)) {
                return line;
            }
        }
    }

    private void signal(String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(holder.pid())).inheritIO().start();
        assertThat(kill.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(kill.exitValue()).as("kill -" + signal).isZero();
    }
}
