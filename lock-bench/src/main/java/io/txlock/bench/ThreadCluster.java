package io.txlock.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/** Runs the workers of a lock scenario as threads of this JVM. */
final class ThreadCluster {

    /** Creates a worker's locker; may open connections. */
    @FunctionalInterface
    interface LockerFactory {
        Locker create(int worker) throws Exception;
    }

    private ThreadCluster() {
    }

    /**
     * @param workers how many workers
     * @param lockers each worker's locker, created before the clock starts
     * @param workload what the workers do
     * @param timing warm-up and measured window
     * @param progress where to count operations
     * @return the sections and failures
     * @throws Exception if a locker could not be created
     */
    static ClusterOutcome run(int workers, LockerFactory lockers, LockWorkload workload, Timing timing, Progress progress)
            throws Exception {
        return run(workers, lockers, workload, timing, progress, CostMeter.NONE);
    }

    /**
     * {@link #run(int, LockerFactory, LockWorkload, Timing, Progress)}, with what the measured window cost.
     *
     * @param workers how many workers
     * @param lockers each worker's locker, created before the clock starts
     * @param workload what the workers do
     * @param timing warm-up and measured window; the warm-up goes on, at most as long again, while the bench JVM's JIT
     *     compiler is busy ({@link Jit#warmUntilCompiled})
     * @param progress where to count operations
     * @param meter reads the CPU and the server's requests at the start and the end of the measured window
     * @return the sections, failures and cost
     * @throws Exception if a locker could not be created
     */
    static ClusterOutcome run(int workers, LockerFactory lockers, LockWorkload workload, Timing timing, Progress progress,
            CostMeter meter) throws Exception {
        Queue<CriticalSection> sections = new ConcurrentLinkedQueue<>();
        AtomicLong timeouts = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        Queue<String> examples = new ConcurrentLinkedQueue<>();
        WorkerLoop.Sink sink = new WorkerLoop.Sink() {
            @Override
            public void section(CriticalSection section) {
                sections.add(section);
                progress.op();
            }

            @Override
            public void timeout() {
                timeouts.incrementAndGet();
            }

            @Override
            public void error(Exception failure) {
                if (errors.incrementAndGet() <= 5) {
                    examples.add(failure.toString());
                }
            }
        };
        List<Locker> created = new ArrayList<>();
        try {
            for (int i = 0; i < workers; i++) {
                created.add(lockers.create(i));
            }
        } catch (Exception e) {
            for (Locker l : created) {
                l.close();
            }
            throw e;
        }
        meter.settle();
        long begin = System.nanoTime();
        Timing.Window planned = timing.window(begin);
        AtomicLong stopAt = new AtomicLong(planned.to() + timing.warmup().toNanos());
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            WorkerLoop loop = new WorkerLoop(i, created.get(i), workload, () -> System.nanoTime() >= stopAt.get(), () -> false, sink);
            Thread t = new Thread(loop, "bench-worker-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        long from = Jit.warmUntilCompiled(planned.from(), timing.warmup());
        long to = from + timing.duration().toNanos();
        stopAt.set(to);
        CostMeter.Sample start = meter.start(List.of());
        Timing.sleepUntil(to);
        CostMeter.Sample end = meter.end(List.of());
        long joinBy = to + workload.waitTime().toNanos() + 30_000_000_000L;
        for (Thread t : threads) {
            while (t.isAlive()) {
                long left = joinBy - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("worker " + t.getName() + " did not stop within its wait + 30 s after the"
                            + " run ended; it is stuck in " + java.util.Arrays.toString(t.getStackTrace()));
                }
                t.join(Math.max(1, Math.min(left / 1_000_000, 1000)));
            }
        }
        return new ClusterOutcome(new ArrayList<>(sections), timeouts.get(), errors.get(), new ArrayList<>(examples), from, to, null,
                meter.between(start, end));
    }
}
