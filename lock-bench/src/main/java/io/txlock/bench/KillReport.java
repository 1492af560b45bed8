package io.txlock.bench;

/**
 * A holder killed with {@code kill -9} in the middle of its critical section, and how the lock came back.
 *
 * @param pid the killed worker JVM
 * @param worker the worker that held the lock
 * @param name the lock it held
 * @param token the killed holder's token
 * @param killedAt when the process was known dead (nanoTime)
 * @param recoveredAfterMillis how long after the kill another worker was granted the lock, or -1 if none was
 *     before the run ended
 * @param nextWorker the worker granted next, or -1
 * @param nextToken that worker's token, or {@link CriticalSection#NO_TOKEN}
 * @param nextWasWaiting whether that worker had asked for the lock before the kill (otherwise the time to recovery
 *     includes time when nobody wanted the lock)
 */
public record KillReport(long pid, int worker, String name, long token, long killedAt, double recoveredAfterMillis,
        int nextWorker, long nextToken, boolean nextWasWaiting) {

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
