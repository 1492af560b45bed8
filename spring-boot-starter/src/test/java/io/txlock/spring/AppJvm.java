package io.txlock.spring;

import io.txlock.spring.app.CounterApplication;
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
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** The test application ({@link CounterApplication#main}) in a JVM of its own, with the test's class path. */
final class AppJvm implements AutoCloseable {

    private static final String EOF = "\u0000EOF";

    private final String label;
    private final Process process;
    private final Path log;
    private final BlockingQueue<String> stdout = new LinkedBlockingQueue<>();

    private AppJvm(String label, Process process, Path log) {
        this.label = label;
        this.process = process;
        this.log = log;
        Thread reader = new Thread(this::pump, label + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * @param label names the JVM in messages and its log file under {@code target/}
     * @param arguments Spring Boot command-line arguments ({@code --name=value})
     * @return the started JVM
     */
    static AppJvm start(String label, List<String> arguments) {
        return start(label, CounterApplication.class, System.getProperty("java.class.path"), arguments);
    }

    /**
     * @param label names the JVM in messages and its log file under {@code target/}
     * @param main the class whose {@code main} runs
     * @param classPath the JVM's class path
     * @param arguments the program's arguments
     * @return the started JVM
     */
    static AppJvm start(String label, Class<?> main, String classPath, List<String> arguments) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classPath, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", main.getName()));
        command.addAll(arguments);
        try {
            Path dir = Files.createDirectories(Path.of("target", "app-jvms"));
            Path log = dir.resolve(label + "-" + ProcessHandle.current().pid() + "-" + System.nanoTime() + ".stderr");
            Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
            return new AppJvm(label, process, log);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + label + ": " + command, e);
        }
    }

    private void pump() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                stdout.add(line);
            }
        } catch (IOException e) {
            // the process ended; EOF says so
        }
        stdout.add(EOF);
    }

    /** Waits for a line starting with {@code prefix}, failing with the JVM's output if it ends or times out first. */
    String expect(String prefix, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> seen = new ArrayList<>();
        while (true) {
            String line = stdout.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (line == null || line.equals(EOF)) {
                throw new AssertionError(label + (line == null ? " did not print '" + prefix + "' within " + timeout
                        : " ended before printing '" + prefix + "'") + "; stdout " + seen + "; " + output());
            }
            seen.add(line);
            if (line.startsWith(prefix)) {
                return line;
            }
        }
    }

    void send(String line) throws IOException {
        OutputStream in = process.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /** Waits for the JVM to exit with status 0. */
    void awaitSuccess(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(label + " still ran after " + timeout + "; " + output());
        }
        if (process.exitValue() != 0) {
            throw new AssertionError(label + " exited with " + process.exitValue() + "; " + output());
        }
    }

    private String output() {
        try {
            String err = Files.readString(log, StandardCharsets.UTF_8);
            return "stderr:\n" + (err.length() > 8000 ? "…" + err.substring(err.length() - 8000) : err);
        } catch (IOException e) {
            return "stderr unreadable: " + e;
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
