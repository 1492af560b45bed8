package io.txlock.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Processes, signals and ports: what the controller needs from the operating system. */
final class Os {

    private Os() {
    }

    /** @return a loopback port that was free a moment ago */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    /**
     * Sends a signal with {@code kill}: Java has no API for SIGSTOP, SIGCONT or SIGQUIT.
     *
     * @param pid the process, which this suite started
     * @param signal the signal's name without SIG, e.g. {@code STOP}
     */
    static void signal(long pid, String signal) {
        run(List.of("kill", "-" + signal, Long.toString(pid)));
    }

    /** @return whether this JVM runs as root, where PostgreSQL must be started as another user */
    static boolean root() {
        return "root".equals(System.getProperty("user.name"));
    }

    /**
     * @param command the command, which must succeed
     * @return its output
     */
    static String run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command, e);
        }
    }

    /** Makes {@code dir} and everything below it belong to {@code user}. */
    static void chown(Path dir, String user) {
        try (Stream<Path> files = Files.walk(dir)) {
            UserPrincipalLookupService users = dir.getFileSystem().getUserPrincipalLookupService();
            for (Path p : (Iterable<Path>) files::iterator) {
                Files.setOwner(p, users.lookupPrincipalByName(user));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot give " + dir + " to " + user, e);
        }
    }

    /**
     * Waits for a process to end, and kills it if it does not in time.
     *
     * @param process the process
     * @param seconds how long it may take
     * @return whether it ended by itself
     */
    static boolean awaitExit(Process process, long seconds) {
        try {
            if (process.waitFor(seconds, TimeUnit.SECONDS)) {
                return true;
            }
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            return false;
        }
    }

    /** @return the last {@code max} characters of a log file, for failure messages */
    static String tail(Path file, int max) {
        try {
            String text = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "(no " + file + ")";
            return text.length() > max ? "…" + text.substring(text.length() - max) : text;
        } catch (IOException e) {
            return "(unreadable " + file + ": " + e + ")";
        }
    }

    /** @return a command prefix that runs a program as {@code user} in the same process (exec, no fork) when root */
    static List<String> asUser(String user) {
        List<String> prefix = new ArrayList<>();
        if (root()) {
            prefix.addAll(List.of("setpriv", "--reuid=" + user, "--regid=" + user, "--init-groups", "--"));
        }
        return prefix;
    }

    /** @return whether every directory from the root down to {@code dir} lets other users through */
    static boolean reachableByOthers(Path dir) {
        try {
            for (Path p = dir.toAbsolutePath(); p != null; p = p.getParent()) {
                if (!Files.getPosixFilePermissions(p).contains(java.nio.file.attribute.PosixFilePermission.OTHERS_EXECUTE)) {
                    return false;
                }
            }
            return true;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    /** Deletes a directory of the suite's own (servers' data, histories of an earlier run), if it exists. */
    static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir + " (a server of an earlier run still running?)", e);
        }
    }
}
