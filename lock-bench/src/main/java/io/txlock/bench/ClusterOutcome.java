package io.txlock.bench;

import java.util.List;

/**
 * What a run of workers left behind.
 *
 * @param sections every critical section, warm-up included (a killed holder's section ends when kill -9 was sent)
 * @param timeouts acquires that waited their whole wait
 * @param errors acquires or releases that failed
 * @param errorExamples the first few failures, described
 * @param measuredFrom start of the measured window (nanoTime)
 * @param measuredTo end of the measured window (nanoTime)
 * @param kill what happened to the holder that was killed, or null if none was
 * @param cost what the measured window cost in CPU and server requests
 */
public record ClusterOutcome(List<CriticalSection> sections, long timeouts, long errors, List<String> errorExamples,
        long measuredFrom, long measuredTo, KillReport kill, Cost cost) {

    /** A run whose cost was not measured. */
    ClusterOutcome(List<CriticalSection> sections, long timeouts, long errors, List<String> errorExamples,
            long measuredFrom, long measuredTo, KillReport kill) {
        this(sections, timeouts, errors, errorExamples, measuredFrom, measuredTo, kill, Cost.none("not measured"));
    }
}
