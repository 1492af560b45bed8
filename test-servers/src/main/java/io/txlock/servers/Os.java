package io.txlock.servers;

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

/** Processes, signals, ports and directories: what the private servers and their tests need from the operating system. */
public final class Os {

    private Os() {
    }

    /** @return a loopback port that was free a moment ago */
    public static int freePort() {
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
     * @param pid the process, which the caller started
     * @param signal the signal's name without SIG, e.g. {@code STOP}
     */
    public static void signal(long pid, String signal) {
        run(List.of("kill", "-" + signal, Long.toString(pid)));
    }

    /** @return whether this JVM runs as root, where PostgreSQL must be started as another user */
    public static boolean root() {
        return "root".equals(System.getProperty("user.name"));
    }

    /**
     * @param command the command, which must succeed
     * @return its output
     */
    public static String run(List<String> command) {
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

    /**
     * Makes {@code dir} and everything below it belong to {@code user}.
     *
     * @param dir the directory
     * @param user the new owner
     */
    public static void chown(Path dir, String user) {
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
    public static boolean awaitExit(Process process, long seconds) {
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

    /**
     * @param file a log file
     * @param max how many characters at most
     * @return the last {@code max} characters of the file, for failure messages
     */
    public static String tail(Path file, int max) {
        try {
            String text = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "(no " + file + ")";
            return text.length() > max ? "…" + text.substring(text.length() - max) : text;
        } catch (IOException e) {
            return "(unreadable " + file + ": " + e + ")";
        }
    }

    /**
     * @param user the user to run as
     * @return a command prefix that runs a program as {@code user} in the same process (exec, no fork) when root
     */
    public static List<String> asUser(String user) {
        List<String> prefix = new ArrayList<>();
        if (root()) {
            prefix.addAll(List.of("setpriv", "--reuid=" + user, "--regid=" + user, "--init-groups", "--"));
        }
        return prefix;
    }

    /**
     * @param dir a directory
     * @return whether every directory from the root down to {@code dir} lets other users through
     */
    public static boolean reachableByOthers(Path dir) {
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

    /**
     * Deletes a directory of the caller's own (servers' data, results of an earlier run), if it exists.
     *
     * @param dir the directory
     */
    public static void deleteTree(Path dir) {
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
