package io.txlock.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The CPU of processes as Linux's {@code /proc} tells it: {@code utime + stime + cutime + cstime} of
 * {@code /proc/<pid>/stat}, in clock ticks ({@code getconf CLK_TCK}), and the process listening on a local TCP
 * port ({@code /proc/net/tcp} and {@code tcp6}, then the {@code /proc/<pid>/fd} that links to the socket).
 */
final class ProcStat {

    private static final Path PROC = Path.of("/proc");
    private static final int LISTEN = 0x0A;
    /** Clock ticks per second, or 0 where {@code getconf CLK_TCK} could not tell. */
    private static final long TICKS_PER_SECOND = ticksPerSecond();

    private ProcStat() {
    }

    /** One process's line of {@code /proc/<pid>/stat}: its parent and its CPU with that of its reaped children. */
    record Stat(long pid, long ppid, long ticks) {
    }

    /** @return why this machine's processes cannot be measured, or null if they can */
    static String unavailable() {
        if (!Files.isReadable(PROC.resolve("self/stat"))) {
            return "no /proc on this machine";
        }
        return TICKS_PER_SECOND <= 0 ? "getconf CLK_TCK did not answer" : null;
    }

    /**
     * The CPU a process tree has used so far: the process and each of its living descendants, each with the
     * children it has reaped ({@code cutime + cstime}). A child that ends and is reaped leaves the tree and its
     * CPU moves into its parent's, so the difference of two readings is the CPU the tree used in between, that of
     * processes born and gone in between included (PostgreSQL's postmaster reaps its backends).
     *
     * @param root the tree's root
     * @return its CPU in nanoseconds, empty if the root is gone or unreadable
     */
    static OptionalLong treeCpuNanos(long root) {
        Map<Long, List<Stat>> children = new HashMap<>();
        Stat rootStat = null;
        for (Stat s : all()) {
            if (s.pid() == root) {
                rootStat = s;
            } else {
                children.computeIfAbsent(s.ppid(), p -> new ArrayList<>()).add(s);
            }
        }
        if (rootStat == null) {
            return OptionalLong.empty();
        }
        long ticks = 0;
        List<Stat> pending = new ArrayList<>(List.of(rootStat));
        while (!pending.isEmpty()) {
            Stat s = pending.remove(pending.size() - 1);
            ticks += s.ticks();
            pending.addAll(children.getOrDefault(s.pid(), List.of()));
        }
        return OptionalLong.of(ticksToNanos(ticks));
    }

    /**
     * @param pid a process
     * @return its CPU with that of its reaped children, in nanoseconds; empty if it is gone
     */
    static OptionalLong cpuNanos(long pid) {
        Stat s = read(PROC.resolve(Long.toString(pid)).resolve("stat"));
        return s == null ? OptionalLong.empty() : OptionalLong.of(ticksToNanos(s.ticks()));
    }

    /**
     * @param port a TCP port
     * @return the process listening on it (on any local address, IPv4 or IPv6); of several sharing the socket, the
     *     one whose parent does not share it; empty if none is found
     */
    static OptionalLong listener(int port) {
        Set<String> sockets = new HashSet<>();
        for (String table : List.of("net/tcp", "net/tcp6")) {
            sockets.addAll(listeningInodes(PROC.resolve(table), port));
        }
        if (sockets.isEmpty()) {
            return OptionalLong.empty();
        }
        Set<Long> holders = new HashSet<>();
        for (Path process : processes()) {
            try (DirectoryStream<Path> fds = Files.newDirectoryStream(process.resolve("fd"))) {
                for (Path fd : fds) {
                    try {
                        if (sockets.contains(Files.readSymbolicLink(fd).toString())) {
                            holders.add(Long.parseLong(process.getFileName().toString()));
                            break;
                        }
                    } catch (IOException gone) {
                        // the descriptor closed while we looked
                    }
                }
            } catch (IOException | SecurityException unreadable) {
                // another user's process, or gone
            }
        }
        for (long pid : holders) {
            Stat s = read(PROC.resolve(Long.toString(pid)).resolve("stat"));
            if (s != null && !holders.contains(s.ppid())) {
                return OptionalLong.of(pid);
            }
        }
        return OptionalLong.empty();
    }

    /** @return the {@code socket:[inode]} links of the sockets in LISTEN state on {@code port} in a /proc/net table */
    static Set<String> listeningInodes(Path table, int port) {
        Set<String> inodes = new HashSet<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(table);
        } catch (IOException e) {
            return inodes;
        }
        for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 10) {
                continue;
            }
            String local = f[1];
            int localPort = Integer.parseInt(local.substring(local.indexOf(':') + 1), 16);
            if (localPort == port && Integer.parseInt(f[3], 16) == LISTEN && !f[9].equals("0")) {
                inodes.add("socket:[" + f[9] + "]");
            }
        }
        return inodes;
    }

    private static List<Stat> all() {
        List<Stat> stats = new ArrayList<>();
        for (Path process : processes()) {
            Stat s = read(process.resolve("stat"));
            if (s != null) {
                stats.add(s);
            }
        }
        return stats;
    }

    private static List<Path> processes() {
        List<Path> pids = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(PROC, p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
            entries.forEach(pids::add);
        } catch (IOException e) {
            // no /proc: no processes
        }
        return pids;
    }

    /** Parses a stat line; the command name, in parentheses, may hold spaces, so fields are counted after its ')'. */
    static Stat parse(String line) {
        String[] f = line.substring(line.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
        return new Stat(Long.parseLong(line.substring(0, line.indexOf(' '))), Long.parseLong(f[1]), ticks);
    }

    private static Stat read(Path stat) {
        try {
            return parse(Files.readString(stat));
        } catch (IOException | RuntimeException gone) {
            return null;
        }
    }

    private static long ticksToNanos(long ticks) {
        return ticks * 1_000_000_000L / TICKS_PER_SECOND;
    }

    private static long ticksPerSecond() {
        try {
            Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(getconf.getInputStream().readAllBytes()).strip();
            return getconf.waitFor() == 0 ? Long.parseLong(out) : 0;
        } catch (IOException | NumberFormatException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }
}
