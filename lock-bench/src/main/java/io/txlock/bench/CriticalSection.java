package io.txlock.bench;

/**
 * One critical section as a worker lived it. Times are {@link System#nanoTime()} readings; on Linux that is
 * {@code CLOCK_MONOTONIC}, one clock for every process of the host, so sections of separate worker JVMs
 * compare directly ({@link ProcessCluster} verifies it when a child starts).
 *
 * @param worker the worker that held the lock
 * @param name the lock name
 * @param token the fencing token of the grant, or {@link #NO_TOKEN} for a raw backend lock that has none
 * @param requested when the worker asked for the lock
 * @param start when the lock was granted (the acquire returned): the critical section begins
 * @param end when the critical section ended, before the worker let go of the lock
 * @param released when the release returned (for a transaction-scoped lock: the commit)
 */
public record CriticalSection(int worker, String name, long token, long requested, long start, long end, long released) {

    /** The token of a raw backend lock, which has none: the checker then checks overlaps only. */
    public static final long NO_TOKEN = Long.MIN_VALUE;

    /** @return the line a worker JVM prints for this section; see {@link #parse(String)} */
    public String toLine() {
        return "R " + worker + " " + token + " " + requested + " " + start + " " + end + " " + released + " " + name;
    }

    /**
     * @param line a line written by {@link #toLine()}
     * @return the section
     * @throws IllegalArgumentException if the line is not one
     */
    public static CriticalSection parse(String line) {
        String[] f = line.split(" ", 8);
        if (f.length != 8 || !f[0].equals("R")) {
            throw new IllegalArgumentException("not a critical-section line: " + line);
        }
        return new CriticalSection(Integer.parseInt(f[1]), f[7], Long.parseLong(f[2]), Long.parseLong(f[3]),
                Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]));
    }
}
