package io.txlock.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Callable;

/**
 * A private server process: started, crashed with a signal, paused and started again, always by its own pid, never a
 * shared server. Every process it starts is killed when the JVM exits, if it is still running.
 */
public final class ServerProcess implements AutoCloseable {

    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(Process::destroyForcibly), "txlock-servers-reaper"));
    }

    private final String name;
    private final List<String> command;
    private final Path log;
    private final Callable<Boolean> ready;
    private final String crashSignal;
    private Process process;

    /**
     * @param name for messages
     * @param command starts the server in the foreground (its pid is the server's)
     * @param log where its output goes
     * @param ready true once it serves
     * @param crashSignal how it is crashed: {@code KILL}, or {@code QUIT} for PostgreSQL's immediate shutdown
     */
    public ServerProcess(String name, List<String> command, Path log, Callable<Boolean> ready, String crashSignal) {
        this.name = name;
        this.command = command;
        this.log = log;
        this.ready = ready;
        this.crashSignal = crashSignal;
    }

    /** Starts the server and returns once it serves (within 90 s, or fails with its log). */
    public void start() {
        launch();
        awaitReady();
    }

    /** Starts the server process without waiting: members of a cluster serve only once a quorum of them runs. */
    public void launch() {
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            RUNNING.add(process);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + name + ": " + command, e);
        }
    }

    /** Returns once the launched server serves (within 90 s, or fails with its log). */
    public void awaitReady() {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with status " + process.exitValue() + ": " + Os.tail(log, 4000));
            }
            try {
                if (ready.call()) {
                    return;
                }
            } catch (Exception notYet) {
                // not serving yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(name + " did not serve within 90 s: " + Os.tail(log, 4000));
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting " + name, e);
            }
        }
    }

    /** Crashes the server with its crash signal and waits until it is gone. */
    public void crash() {
        if (process != null && process.isAlive()) {
            Os.signal(process.pid(), crashSignal);
            Os.awaitExit(process, 60);
        }
        if (process != null) {
            RUNNING.remove(process);
        }
    }

    /** @return whether the server process runs now */
    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    /**
     * Stops the server and the processes it forked with {@code SIGSTOP} for {@code pause}, then lets them continue.
     *
     * @param pause how long
     * @throws InterruptedException if interrupted while paused (the server continues)
     */
    public void pause(Duration pause) throws InterruptedException {
        List<ProcessHandle> all = new java.util.ArrayList<>(List.of(process.toHandle()));
        process.descendants().forEach(all::add);
        all.forEach(p -> Os.signal(p.pid(), "STOP"));
        try {
            Thread.sleep(pause.toMillis());
        } finally {
            all.forEach(p -> Os.signal(p.pid(), "CONT"));
        }
    }

    /** Crashes the server and starts it again on the same port and data. */
    public void restart() {
        crash();
        start();
    }

    @Override
    public void close() {
        crash();
    }

    @Override
    public String toString() {
        return name;
    }
}
