package io.txlock.bench;

/**
 * What a measured window cost in CPU and server requests, in all: the bench JVM's CPU (with its worker JVMs'),
 * the server's CPU and the requests (or transactions, packets…) the server counted. A figure that could not be
 * read is -1, with the reason.
 *
 * @param benchCpuNanos CPU of the bench JVM and its worker JVMs in the window
 * @param serverCpuNanos CPU of the server's processes in the window, or -1
 * @param requests what the server counted in the window, the readings' own requests taken out, or -1
 * @param requestUnit what {@code requests} counts, e.g. "requests", "transactions"; null if nothing
 * @param benchMissing why there is no bench CPU, or null
 * @param serverMissing why there is no server CPU, or null
 * @param requestsMissing why there is no count, or null
 * @param countNote what the count leaves out, or null
 * @param fsyncs the server's fsyncs in the window (InnoDB's, PostgreSQL's WAL syncs), or -1 where it does not
 *     count them
 * @param jitMillis what the bench JVM's JIT compiler threads spent compiling in the window (the sum over its threads,
 *     in ms; worker JVMs not included), or -1 where unknown: a way whose code was still being compiled in its window
 *     paid for it in CPU on the bench's cores
 */
public record Cost(long benchCpuNanos, long serverCpuNanos, long requests, String requestUnit, String benchMissing,
        String serverMissing, String requestsMissing, String countNote, long fsyncs, long jitMillis) {

    /**
     * @param why why nothing was measured
     * @return a cost with nothing in it
     */
    public static Cost none(String why) {
        return new Cost(-1, -1, -1, null, why, why, why, null, -1, -1);
    }

    /**
     * @param total a figure of this window, -1 if unknown
     * @param ops the window's operations
     * @param scale what to divide it by first: 1000 turns nanoseconds into microseconds
     * @return it per operation; NaN if unknown or no operation
     */
    static double perOp(long total, long ops, double scale) {
        return total < 0 || ops <= 0 ? Double.NaN : total / scale / ops;
    }
}
