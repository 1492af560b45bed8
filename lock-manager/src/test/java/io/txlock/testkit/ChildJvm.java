package io.txlock.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ChildWorker} in its own JVM, with the test's class path: its stdout is read line by line, its stderr
 * kept in a file for failure messages. Closing it kills the JVM if it still runs.
 */
final class ChildJvm implements AutoCloseable {

    private static final String EOF = "\u0000EOF";

    private final String label;
    private final Process process;
    private final Path stderr;
    private final BlockingQueue<String> stdout = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();

    private ChildJvm(String label, Process process, Path stderr) {
        this.label = label;
        this.process = process;
        this.stderr = stderr;
        Thread reader = new Thread(this::pumpStdout, "kit-" + label + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * @param label how failure messages name this JVM
     * @param dir where to keep its stderr
     * @param recipe how it builds its provider
     * @param mode and the rest: the {@link ChildWorker} arguments after the recipe
     * @return the started JVM
     */
    static ChildJvm start(String label, Path dir, ProviderRecipe recipe, String mode, String... rest) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        for (Map.Entry<Object, Object> p : System.getProperties().entrySet()) {
            if (String.valueOf(p.getKey()).startsWith("txlock.")) {
                command.add("-D" + p.getKey() + "=" + p.getValue());
            }
        }
        command.add(ChildWorker.class.getName());
        command.add(mode);
        command.add(recipe.factory().getName());
        command.add(recipe.config());
        command.addAll(List.of(rest));
        Path stderr = dir.resolve(label.replaceAll("[^A-Za-z0-9-]", "_") + ".stderr");
        try {
            Process process = new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.to(stderr.toFile()))
                    .start();
            return new ChildJvm(label, process, stderr);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + label + ": " + command, e);
        }
    }

    private void pumpStdout() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                stdout.add(line);
            }
        } catch (IOException e) {
            // the process died; EOF below says so
        }
        stdout.add(EOF);
    }

    /**
     * @param prefix what the line starts with
     * @param timeout how long to wait for it
     * @return the first line starting with {@code prefix}
     * @throws AssertionError with the JVM's output if it did not come in time or the JVM ended first
     */
    String expectLine(String prefix, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                String line = stdout.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                if (line == null) {
                    throw new AssertionError(label + " did not print '" + prefix + "' within " + timeout + "; " + output());
                }
                if (line.equals(EOF)) {
                    stdout.add(EOF);
                    throw new AssertionError(label + " ended before printing '" + prefix + "'; " + output());
                }
                seen.add(line);
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + label, e);
        }
    }

    /** @param line written to the JVM's stdin */
    void send(String line) {
        try {
            OutputStream in = process.getOutputStream();
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            throw new AssertionError(label + " did not take '" + line + "' on stdin; " + output(), e);
        }
    }

    /**
     * @param timeout how long the JVM may still run
     * @throws AssertionError with its output if it ran longer or exited with a status other than 0
     */
    void awaitSuccess(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError(label + " still ran after " + timeout + "; " + output());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + label, e);
        }
        if (process.exitValue() != 0) {
            throw new AssertionError(label + " exited with status " + process.exitValue() + "; " + output());
        }
    }

    /** Kills the JVM like {@code kill -9} and waits until it is gone. */
    void kill() {
        process.destroyForcibly();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new AssertionError(label + " survived kill -9 for 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while killing " + label, e);
        }
    }

    /** @return what the JVM printed so far, for failure messages */
    String output() {
        String err;
        try {
            err = Files.exists(stderr) ? Files.readString(stderr, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            err = "(unreadable: " + e + ")";
        }
        if (err.length() > 8000) {
            err = "…" + err.substring(err.length() - 8000);
        }
        Optional<Integer> status = process.isAlive() ? Optional.empty() : Optional.of(process.exitValue());
        return "status " + status.map(String::valueOf).orElse("running") + ", stdout " + seen + ", stderr:\n" + err;
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
    }

    @Override
    public String toString() {
        return label;
    }
}
