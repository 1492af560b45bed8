package io.txlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A test's child JVM running one of this package's {@code main} classes, its stdout read line by line. */
final class ChildProcess implements AutoCloseable {

    /** A child JVM may take long to start on a loaded machine; only a failing test waits that long. */
    static final Duration START = Duration.ofSeconds(120);
    private static final String EOF = "\u0000EOF";

    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();

    private ChildProcess(Process process) {
        this.process = process;
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // the process died: EOF says so
            }
            lines.add(EOF);
        }, "child-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    static ChildProcess start(Class<?> main, String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", main.getName()));
        command.addAll(List.of(args));
        try {
            return new ChildProcess(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the rest of the first line starting with {@code prefix}, waiting for it at most {@code timeout} */
    String expect(String prefix, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            assertThat(line).as("a line '" + prefix + "…' from the child within " + timeout + "; it printed " + seen).isNotNull();
            assertThat(line).as("the child ended before printing '" + prefix + "…'; it printed " + seen).isNotEqualTo(EOF);
            seen.add(line);
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length()).trim();
            }
        }
    }

    /** Kills the JVM like {@code kill -9} and waits until it is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("child JVM gone after kill -9").isTrue();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
