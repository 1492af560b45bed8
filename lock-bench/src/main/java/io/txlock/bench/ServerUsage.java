package io.txlock.bench;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.OptionalLong;

/**
 * What the bench reads of a backend's server around a measured window: the CPU of its processes (a local server,
 * found by its port) and the requests it counts. Either may be missing, with the reason the report gives.
 */
final class ServerUsage implements AutoCloseable {

    /** A count the server keeps, read on a connection of its own. */
    interface Counter extends AutoCloseable {
        /**
         * @return the count now
         * @throws Exception if the server did not answer
         */
        long read() throws Exception;

        /**
         * @return the count now, and the server's fsyncs so far (-1 if it does not count them), read
         *     together
         * @throws Exception if the server did not answer
         */
        default Counts counts() throws Exception {
            return new Counts(read(), -1);
        }

        /** @return what one reading adds to the count of the next (a SHOW that counts itself, an INFO) */
        default long ownRequests() {
            return 0;
        }

        /** @return what the count leaves out or gets late, for the report; null if nothing */
        default String note() {
            return null;
        }

        @Override
        default void close() {
        }
    }

    /**
     * What a counter read: the requests (or transactions, packets…) and the fsyncs, each -1 where
     * unknown.
     */
    record Counts(long requests, long fsyncs) {
    }

    /** A reading: CPU in nanoseconds, the count and the fsyncs, each -1 where unknown. */
    record Reading(long cpuNanos, long requests, long fsyncs) {
    }

    private final long pid;
    private final String cpuMissing;
    private final String unit;
    private final Counter counter;
    private final String requestsMissing;

    private ServerUsage(long pid, String cpuMissing, String unit, Counter counter, String requestsMissing) {
        this.pid = pid;
        this.cpuMissing = cpuMissing;
        this.unit = unit;
        this.counter = counter;
        this.requestsMissing = requestsMissing;
    }

    /**
     * @param what the server, for the reasons, e.g. "PostgreSQL"
     * @param host its host
     * @param port its TCP port
     * @param unit what the counter counts, e.g. "requests"
     * @param counter its count, or null with {@code requestsMissing}
     * @param requestsMissing why there is no count, or null
     * @return the usage of a server process on this machine, or without CPU if it is remote or not found
     */
    static ServerUsage ofServer(String what, String host, int port, String unit, Counter counter, String requestsMissing) {
        String missing = ProcStat.unavailable();
        long pid = -1;
        if (missing == null && !isLocal(host)) {
            missing = what + " at " + host + " is not on this machine: its processes cannot be read";
        }
        if (missing == null) {
            OptionalLong found = ProcStat.listener(port);
            if (found.isPresent()) {
                pid = found.getAsLong();
            } else {
                missing = "no process of this machine listens on port " + port + " (or its /proc/<pid>/fd are unreadable)";
            }
        }
        return new ServerUsage(pid, missing == null ? null : what + " CPU: " + missing, unit, counter, requestsMissing);
    }

    /**
     * @param what the server, e.g. "embedded H2"
     * @param unit what the counter counts
     * @param counter its count, or null with {@code requestsMissing}
     * @param requestsMissing why there is no count, or null
     * @return the usage of a server that runs inside the bench JVM: its CPU is the JVM's
     */
    static ServerUsage embedded(String what, String unit, Counter counter, String requestsMissing) {
        return new ServerUsage(-1, what + " runs in the bench JVM: its CPU is in the bench JVM's column", unit, counter,
                requestsMissing);
    }

    /**
     * @param why why nothing is read
     * @return a usage that reads nothing
     */
    static ServerUsage none(String why) {
        return new ServerUsage(-1, why, null, null, why);
    }

    /** @return the server's root process, -1 if its CPU is not read */
    long pid() {
        return pid;
    }

    /** @return what the counter counts, or null */
    String unit() {
        return unit;
    }

    /** @return why there is no server CPU, or null */
    String cpuMissing() {
        return cpuMissing;
    }

    /** @return why there is no count, or null */
    String requestsMissing() {
        return requestsMissing;
    }

    /** @return what the count leaves out, or null */
    String countNote() {
        return counter == null ? null : counter.note();
    }

    /** @return the counter's own requests per reading */
    long ownRequests() {
        return counter == null ? 0 : counter.ownRequests();
    }

    /**
     * @return the server's CPU so far (its process and descendants), its count and its fsyncs now; -1 for
     *     what is unknown, and for counts that failed to read
     */
    Reading read() {
        long cpu = pid < 0 ? -1 : ProcStat.treeCpuNanos(pid).orElse(-1);
        Counts counts = new Counts(-1, -1);
        if (counter != null) {
            try {
                counts = counter.counts();
            } catch (Exception e) {
                counts = new Counts(-1, -1);
            }
        }
        return new Reading(cpu, counts.requests(), counts.fsyncs());
    }

    @Override
    public void close() {
        if (counter != null) {
            counter.close();
        }
    }

    private static boolean isLocal(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
