package io.txlock.bench;

import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * Reads the CPU of the bench and of the server, and the server's requests, at the start and the end of a
 * measured window. At the start the server is read before the bench, at the end after it, so the readings' own
 * work stays out of the bench's CPU.
 */
final class CostMeter {

    /** Reads nothing: for runs whose cost is not measured. */
    static final CostMeter NONE = new CostMeter(null);

    private static final com.sun.management.OperatingSystemMXBean OS =
            ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os ? os : null;

    private final ServerUsage server;

    /** @param server the backend's server, or null to read nothing */
    CostMeter(ServerUsage server) {
        this.server = server;
    }

    /**
     * Before a measured run begins: see {@link Settle}; nothing for a meter that reads nothing.
     *
     * @throws InterruptedException if interrupted meanwhile
     */
    void settle() throws InterruptedException {
        if (server != null) {
            Settle.beforeRun(server);
        }
    }

    /** The readings at one end of a window; CPU in nanoseconds, JIT compilation in ms, -1 where unknown. */
    record Sample(long benchCpuNanos, ServerUsage.Reading server, long jitMillis) {
    }

    /**
     * @param workerPids the worker JVMs of the run, if any
     * @return the readings at the window's start
     */
    Sample start(List<Long> workerPids) {
        if (server == null) {
            return null;
        }
        ServerUsage.Reading s = server.read();
        return new Sample(benchCpuNanos(workerPids), s, Jit.compiledMillis());
    }

    /**
     * @param workerPids the worker JVMs of the run, if any
     * @return the readings at the window's end
     */
    Sample end(List<Long> workerPids) {
        if (server == null) {
            return null;
        }
        long bench = benchCpuNanos(workerPids);
        long jit = Jit.compiledMillis();
        return new Sample(bench, server.read(), jit);
    }

    /**
     * @param start the readings at the start, or null
     * @param end the readings at the end, or null
     * @return what the window cost
     */
    Cost between(Sample start, Sample end) {
        if (server == null || start == null || end == null) {
            return Cost.none("not measured");
        }
        long bench = start.benchCpuNanos() < 0 || end.benchCpuNanos() < 0 ? -1 : end.benchCpuNanos() - start.benchCpuNanos();
        long cpu = start.server().cpuNanos() < 0 || end.server().cpuNanos() < 0 ? -1 : end.server().cpuNanos() - start.server().cpuNanos();
        long requests = start.server().requests() < 0 || end.server().requests() < 0 ? -1
                : end.server().requests() - start.server().requests() - server.ownRequests();
        long fsyncs = start.server().fsyncs() < 0 || end.server().fsyncs() < 0 ? -1
                : end.server().fsyncs() - start.server().fsyncs();
        String cpuMissing = cpu >= 0 ? null : server.cpuMissing() != null ? server.cpuMissing() : "the server's process ended";
        String requestsMissing = requests >= 0 ? null
                : server.requestsMissing() != null ? server.requestsMissing() : "reading the server's count failed";
        return new Cost(bench, cpu, requests, server.unit(), bench >= 0 ? null : "a worker JVM ended in the window", cpuMissing,
                requestsMissing, requests >= 0 ? server.countNote() : null, fsyncs,
                start.jitMillis() < 0 || end.jitMillis() < 0 ? -1 : end.jitMillis() - start.jitMillis());
    }

    /** @return this JVM's CPU and the worker JVMs', or -1 if one of them is gone */
    private static long benchCpuNanos(List<Long> workerPids) {
        if (OS == null) {
            return -1;
        }
        long cpu = OS.getProcessCpuTime();
        for (long pid : workerPids) {
            var worker = ProcStat.cpuNanos(pid);
            if (worker.isEmpty()) {
                return -1;
            }
            cpu += worker.getAsLong();
        }
        return cpu;
    }
}
