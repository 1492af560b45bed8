package io.txlock.chaos;

import io.txlock.servers.Os;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The controller's side of one holder JVM: start, kill, pause, resume, stop. */
final class HolderProcess {

    private final HolderSpec spec;
    private final Process process;
    private final Path output;
    private boolean killed;

    private HolderProcess(HolderSpec spec, Process process, Path output) {
        this.spec = spec;
        this.process = process;
        this.output = output;
    }

    /** Starts a holder JVM with this JVM's class path. */
    static HolderProcess start(HolderSpec spec) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                ChaosHolder.class.getName()));
        command.addAll(spec.toArgs());
        Path output = spec.history().resolveSibling(spec.id() + ".out");
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile())).start();
            return new HolderProcess(spec, process, output);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start holder " + spec.id(), e);
        }
    }

    String id() {
        return spec.id();
    }

    Path history() {
        return spec.history();
    }

    boolean alive() {
        return process.isAlive();
    }

    boolean killed() {
        return killed;
    }

    /** @return whether the holder's last logged step leaves it holding the lock */
    boolean holding() {
        Optional<Event> last = History.last(spec.history());
        return last.isPresent() && switch (last.get().kind()) {
            case GRANT, VALID, WRITE, RESERR, LOST -> true;
            default -> false;
        };
    }

    /**
     * @return whether the holder is in the hold of its round: granted, checked valid, and not yet written, so that
     *     a pause now is followed by a validity check before the write
     */
    boolean inHold() {
        List<Event> tail = History.tail(spec.history());
        int n = tail.size();
        return n >= 2 && tail.get(n - 1).valid() && tail.get(n - 2).kind() == Event.Kind.GRANT;
    }

    /** {@code kill -9}, and waits until it is gone. */
    void kill() {
        killed = true;
        process.destroyForcibly();
        Os.awaitExit(process, 60);
    }

    void pause() {
        Os.signal(process.pid(), "STOP");
    }

    void resume() {
        Os.signal(process.pid(), "CONT");
    }

    /** Asks the holder to stop after its current round. */
    void requestStop() {
        if (!process.isAlive()) {
            return;
        }
        try {
            OutputStream in = process.getOutputStream();
            in.write("STOP\n".getBytes(StandardCharsets.UTF_8));
            in.flush();
            in.close();
        } catch (IOException e) {
            // it died meanwhile: its exit status says how
        }
    }

    /**
     * @param seconds how long it may take to stop
     * @return its exit status, or empty if it had to be killed
     */
    Optional<Integer> awaitStop(long seconds) {
        return Os.awaitExit(process, seconds) ? Optional.of(process.exitValue()) : Optional.empty();
    }

    /** @return the end of what the JVM printed, for the report of a failed holder */
    String output() {
        return Os.tail(output, 3000);
    }
}
