package io.txlock.jmh;

import io.txlock.spi.LockRequest;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * Eight threads of one manager, each on a name of its own: no lock is ever contended, but the threads share the
 * manager's maps, timers and provider. Beside it the provider's bare cycle ({@link #floor}) and a {@link ReentrantLock}
 * per name found in a {@link ConcurrentHashMap} ({@link #juc}).
 */
@Threads(8)
public class EightNames extends ManagerBenchmark {

    private final ConcurrentHashMap<String, ReentrantLock> locks = new ConcurrentHashMap<>();
    private final AtomicInteger threads = new AtomicInteger();

    /** One benchmark thread's own name. */
    @State(Scope.Thread)
    public static class Name {
        String name;
        LockRequest request;

        /**
         * Picks the next name.
         *
         * @param bench the shared state
         */
        @Setup
        public void setUp(EightNames bench) {
            int thread = bench.threads.getAndIncrement();
            name = "name-" + thread;
            request = Fixture.request(name, thread);
        }
    }

    /**
     * @param name this thread's name
     * @return the token of one acquire and release through txlock
     */
    @Benchmark
    public long txlock(Name name) {
        return Fixture.cycle(manager, name.name);
    }

    /**
     * @param name this thread's name
     * @return the token of the provider's bare take and give back
     */
    @Benchmark
    public long floor(Name name) {
        return Fixture.bareCycle(provider, name.request);
    }

    /**
     * @param name this thread's name
     * @return the hold count inside one lock and unlock of the name's {@link ReentrantLock}
     */
    @Benchmark
    public int juc(Name name) {
        return Fixture.jucCycle(locks.computeIfAbsent(name.name, n -> new ReentrantLock()));
    }
}
