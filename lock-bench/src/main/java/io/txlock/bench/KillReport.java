package io.txlock.bench;

import java.util.List;

/**
 * A holder killed with {@code kill -9} in the middle of its critical section, and how the lock came back.
 *
 * @param pid the killed worker JVM
 * @param worker the worker that held the lock
 * @param name the lock it held
 * @param token the killed holder's token
 * @param heldSince when the killed holder got the lock (nanoTime): the start of its critical section
 * @param killedAt when kill -9 was sent (nanoTime): the end of the killed holder's section, which had hung doing
 *     nothing since it reported the lock
 * @param recoveredAfterMillis how long after the kill another worker was granted the lock, or -1 if none was
 *     before the run ended
 * @param nextWorker the worker granted next, or -1
 * @param nextToken that worker's token, or {@link CriticalSection#NO_TOKEN}
 * @param nextWasWaiting whether that worker had asked for the lock before the kill (otherwise the time to recovery
 *     includes time when nobody wanted the lock)
 * @param jvmWorkers every worker of the killed JVM, the holder included: any of them may have died between an
 *     increment of a shared counter and its report
 */
public record KillReport(long pid, int worker, String name, long token, long heldSince, long killedAt, double recoveredAfterMillis,
        int nextWorker, long nextToken, boolean nextWasWaiting, List<Integer> jvmWorkers) {

    /**
     * @param section a critical section of the run
     * @return whether it is the killed holder's, which ends when kill -9 was sent
     */
    public boolean isKilledHolder(CriticalSection section) {
        return section.worker() == worker && section.start() == heldSince && section.name().equals(name);
    }

    /** @return whether another worker got the lock after the kill, with a greater token */
    public boolean recovered() {
        return recoveredAfterMillis >= 0 && nextToken > token;
    }

    /** @return one line for the terminal */
    public String describe() {
        String killed = "killed worker JVM " + pid + " (worker " + worker + ") holding '" + name + "' with token " + token;
        if (recoveredAfterMillis < 0) {
            return killed + "; the lock was NOT granted again before the run ended";
        }
        return killed + "; granted again after " + String.format(java.util.Locale.ROOT, "%.1f ms", recoveredAfterMillis)
                + " to worker " + nextWorker + (nextWasWaiting ? ", which was waiting," : " (which asked only after the kill)")
                + " with token " + nextToken + (nextToken > token ? " (greater: fenced)" : " (NOT greater)");
    }
}
