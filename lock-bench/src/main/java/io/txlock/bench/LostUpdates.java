package io.txlock.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The lost updates of a lock scenario run, from its {@link FileCounters} and the critical sections its workers
 * reported. Each reported section incremented its name's counter once, and a worker's k-th increment carries the
 * fingerprint (worker, k), so the counters' total count and fingerprint sum say which increments they hold. A
 * reported increment they do not hold was lost: two holders were inside at once.
 *
 * <p>A worker JVM killed with kill -9 may die after a worker's increment and before its report. Such an increment
 * is accepted only from a worker of that JVM, and only as its next one (its fingerprint says so); a lost update
 * cannot hide behind it, because the fingerprints would no longer add up.
 *
 * @param reported increments the workers reported (the killed holder, which never incremented, left out)
 * @param counted increments the counters hold
 * @param unreported increments of the killed JVM that it did not live to report, recognised by their fingerprints
 * @param lost reported increments the counters do not hold; at least 1 whenever the fingerprints do not add up
 */
record LostUpdates(long reported, long counted, long unreported, long lost) {

    /** Combinations of the killed JVM's workers tried before giving up on recognising its unreported increments. */
    private static final long SEARCH_LIMIT = 1_000_000;

    /**
     * @param sections every critical section of the run, the killed holder's included
     * @param total the counters, read after the run
     * @param kill the killed holder, or null if none was killed
     * @return the count
     */
    static LostUpdates count(Collection<CriticalSection> sections, FileCounters.Total total, KillReport kill) {
        Map<Integer, Long> perWorker = new HashMap<>();
        long reported = 0;
        long expected = 0;
        for (CriticalSection s : sections) {
            if (kill != null && kill.isKilledHolder(s)) {
                continue;
            }
            long sequence = perWorker.merge(s.worker(), 1L, Long::sum) - 1;
            expected += FileCounters.fingerprint(s.worker(), sequence);
            reported++;
        }
        List<Long> nextOfKilledJvm = new ArrayList<>();
        if (kill != null) {
            for (int worker : kill.jvmWorkers()) {
                nextOfKilledJvm.add(FileCounters.fingerprint(worker, perWorker.getOrDefault(worker, 0L)));
            }
        }
        long extra = total.count() - reported;
        if (extra >= 0 && extra <= nextOfKilledJvm.size()
                && someAddUpTo(nextOfKilledJvm, 0, (int) extra, total.fingerprints() - expected, new long[] {SEARCH_LIMIT})) {
            return new LostUpdates(reported, total.count(), extra, 0);
        }
        return new LostUpdates(reported, total.count(), 0, Math.max(1, reported - total.count()));
    }

    /** Whether {@code size} of the values from index {@code from} on add up to {@code sum}, within a budget of tries. */
    private static boolean someAddUpTo(List<Long> values, int from, int size, long sum, long[] budget) {
        if (size == 0) {
            return sum == 0;
        }
        if (--budget[0] < 0) {
            return false;
        }
        for (int i = from; i <= values.size() - size; i++) {
            if (someAddUpTo(values, i + 1, size - 1, sum - values.get(i), budget)) {
                return true;
            }
        }
        return false;
    }

    /** @param counts a measurement's counts, to which "increments", "counter", "unreported increments" and "lost updates" are added */
    void addTo(Map<String, Long> counts) {
        counts.put("increments", reported);
        counts.put("counter", counted);
        if (unreported > 0) {
            counts.put("unreported increments", unreported);
        }
        counts.put("lost updates", lost);
    }

    /**
     * @param way "txlock" or "floor"
     * @return the failure to report, or null if no update was lost
     */
    String failure(String way) {
        if (lost == 0) {
            return null;
        }
        return way + ": " + lost + " lost updates (" + reported + " increments under the lock, the counters hold " + counted
                + (counted >= reported ? ", but not those reported" : "") + ")";
    }
}
