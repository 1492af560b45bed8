package io.txlock.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What each worker of a lock scenario does, the same in a thread and in a worker JVM: lock one of
 * {@code names} names, increment that name's shared counter inside, spending {@code hold} between its read and its
 * write, unlock.
 *
 * @param namePrefix the lock name if there is one, else names are this prefix, '-' and 0 … names - 1
 * @param names how many lock names the workers spread over
 * @param hold how long each critical section lasts, besides the counter's read and write
 * @param counters the file of the shared counters, one per name ({@link FileCounters})
 * @param waitTime how long an acquire may wait
 * @param lease the lease of LEASE-scoped locks (renewed while the holder lives)
 */
public record LockWorkload(String namePrefix, int names, Duration hold, Path counters, Duration waitTime, Duration lease) {

    /** @return every lock name of the workload */
    public List<String> allNames() {
        List<String> all = new ArrayList<>(names);
        for (int i = 0; i < names; i++) {
            all.add(name(i));
        }
        return all;
    }

    /**
     * @param i 0 … names - 1
     * @return the i-th name
     */
    public String name(int i) {
        return names == 1 ? namePrefix : namePrefix + "-" + i;
    }

    /** @return {@code key=value} arguments for a worker JVM */
    public List<String> toArgs() {
        return List.of("prefix=" + namePrefix, "names=" + names, "holdNanos=" + hold.toNanos(), "counters=" + counters,
                "waitMillis=" + waitTime.toMillis(), "leaseMillis=" + lease.toMillis());
    }

    /**
     * @param args arguments written by {@link #toArgs()}
     * @return the workload
     */
    public static LockWorkload fromArgs(Map<String, String> args) {
        return new LockWorkload(args.get("prefix"), Integer.parseInt(args.get("names")),
                Duration.ofNanos(Long.parseLong(args.get("holdNanos"))), Path.of(args.get("counters")),
                Duration.ofMillis(Long.parseLong(args.get("waitMillis"))), Duration.ofMillis(Long.parseLong(args.get("leaseMillis"))));
    }
}
