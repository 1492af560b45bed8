package io.txlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.spi.TransactionSupport;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A holder JVM stopped with SIGSTOP past its lease (a GC pause, a frozen VM): etcd expires its key and grants the lock
 * to another owner with a higher token; when the holder resumes (SIGCONT) its handle is no longer valid, and its late
 * release is refused without touching the new holder's lock.
 */
class PausedHolderTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private EtcdCluster etcd;
    private LockManager survivor;
    private LockManager bystander;
    private Process holder;
    private final BlockingQueue<String> holderSays = new LinkedBlockingQueue<>();

    @BeforeEach
    void start() {
        etcd = EtcdCluster.start(1, 50);
    }

    @AfterEach
    void stop() throws Exception {
        if (holder != null) {
            signal("CONT");
            holder.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        if (survivor != null) {
            survivor.close();
        }
        if (bystander != null) {
            bystander.close();
        }
        etcd.close();
    }

    @Test
    void aHolderPausedPastItsLeaseFindsItInvalidAndItsLateReleaseIsRefused() throws Exception {
        String config = EtcdProviderFactory.config(etcd.endpoints(), "/paused-" + UUID.randomUUID().toString().substring(0, 8) + "/");
        String name = "job:nightly/report";
        holder = startHolder(config, name);
        String[] held = expect("HELD ").split(" ");
        long pausedToken = Long.parseLong(held[1]);

        survivor = LockManager.builder(new EtcdProviderFactory().create(config)).transactions(TransactionSupport.none()).build();
        bystander = LockManager.builder(new EtcdProviderFactory().create(config)).transactions(TransactionSupport.none()).build();
        assertThat(survivor.inspect(name)).as("the holder's lock").hasValueSatisfying(info -> {
            assertThat(info.fencingToken()).isEqualTo(pausedToken);
            assertThat(info.ownerId()).startsWith(held[2] + "/");
        });
        assertThat(survivor.tryAcquire(name)).as("while the holder runs").isEmpty();

        signal("STOP");
        LockHandle taken = survivor.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE).withWait(PATIENCE));
        assertThat(taken.fencingToken()).as("token after the paused holder's").isGreaterThan(pausedToken);
        signal("CONT");

        send("check");
        assertThat(expect("VALID ")).as("the resumed holder's handle").isEqualTo("VALID false");
        send("release");
        assertThat(expect("RE")).as("the resumed holder's late release").startsWith("REFUSED LockNotHeldException");

        assertThat(taken.isValid()).as("the new holder after the late release").isTrue();
        assertThat(bystander.tryAcquire(name)).as("after the late release").isEmpty();
        assertThat(bystander.inspect(name)).hasValueSatisfying(info -> assertThat(info.fencingToken()).isEqualTo(taken.fencingToken()));
        taken.release();
    }

    private Process startHolder(String config, String name) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        File log = new File("target/paused-holder-" + ProcessHandle.current().pid() + ".log");
        Process process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "-Xmx128m",
                HolderProcess.class.getName(), EtcdProviderFactory.class.getName(), config, name, Long.toString(LEASE.toMillis()))
                .redirectError(ProcessBuilder.Redirect.appendTo(log)).start();
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    holderSays.add(line);
                }
            } catch (IOException e) {
                // the process ended
            }
        }, "paused-holder-stdout");
        reader.setDaemon(true);
        reader.start();
        return process;
    }

    private String expect(String prefix) throws InterruptedException {
        while (true) {
            String line = holderSays.poll(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            assertThat(line).as("the holder JVM printing '%s…' (see target/paused-holder-*.log)", prefix).isNotNull();
            if (line.startsWith(prefix)) {
                return line;
            }
        }
    }

    private void send(String line) throws IOException {
        OutputStream in = holder.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(holder.pid())).inheritIO().start();
            assertThat(kill.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
