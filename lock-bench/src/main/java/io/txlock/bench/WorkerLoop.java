package io.txlock.bench;

import io.txlock.LockTimeoutException;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * One worker of a lock scenario: lock a name, increment its shared counter, unlock, report the section; until
 * told to stop. The same loop runs in a thread of the bench and in a worker JVM.
 */
final class WorkerLoop implements Runnable {

    /** Where a worker reports. Called from the worker's thread. */
    interface Sink {
        /** @param section a finished critical section */
        void section(CriticalSection section);

        /** An acquire waited its whole wait without a grant. */
        void timeout();

        /** @param failure an acquire or release failed */
        void error(Exception failure);

        /**
         * The worker was told to hang and now holds the lock without ever letting go (until killed).
         *
         * @param worker the worker
         * @param name the lock it holds
         * @param token its token
         * @param requested when it asked
         * @param start when it got the lock
         */
        default void hanging(int worker, String name, long token, long requested, long start) {
        }
    }

    private final int worker;
    private final Locker locker;
    private final LockWorkload workload;
    private final BooleanSupplier stop;
    private final BooleanSupplier hang;
    private final Sink sink;
    private final FileCounters counters;
    private final SplittableRandom random;
    private long increments;

    WorkerLoop(int worker, Locker locker, LockWorkload workload, BooleanSupplier stop, BooleanSupplier hang, Sink sink) {
        this.worker = worker;
        this.locker = locker;
        this.workload = workload;
        this.stop = stop;
        this.hang = hang;
        this.sink = sink;
        this.counters = new FileCounters(workload.counters(), workload.names());
        this.random = new SplittableRandom(worker * 0x9E3779B97F4A7C15L + System.nanoTime());
    }

    @Override
    public void run() {
        long holdNanos = workload.hold().toNanos();
        try {
            while (!stop.getAsBoolean()) {
                int index = workload.names() == 1 ? 0 : random.nextInt(workload.names());
                String name = workload.name(index);
                long requested = System.nanoTime();
                long token;
                try {
                    token = locker.lock(name);
                } catch (LockTimeoutException e) {
                    sink.timeout();
                    continue;
                } catch (Exception e) {
                    sink.error(e);
                    LockSupport.parkNanos(10_000_000);
                    continue;
                }
                long start = System.nanoTime();
                if (hang.getAsBoolean()) {
                    sink.hanging(worker, name, token, requested, start);
                    while (true) {
                        LockSupport.park();
                    }
                }
                counters.increment(index, FileCounters.fingerprint(worker, increments++), holdNanos);
                long end = System.nanoTime();
                try {
                    locker.unlock();
                } catch (Exception e) {
                    sink.error(e);
                }
                sink.section(new CriticalSection(worker, name, token, requested, start, end, System.nanoTime()));
            }
        } finally {
            counters.close();
            try {
                locker.close();
            } catch (Exception e) {
                sink.error(e);
            }
        }
    }
}
