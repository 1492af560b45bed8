package io.txlock.jmh;

import io.txlock.LockManager;
import io.txlock.spi.LockRequest;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One thread, one name, nobody else: acquire and release through txlock ({@link #txlock}), beside the in-memory
 * provider's bare take and give back ({@link #floor}) and a {@link ReentrantLock} ({@link #juc}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class Uncontended {

    private LockManager manager;
    private MemoryLockProvider provider;
    private LockRequest request;
    private final ReentrantLock lock = new ReentrantLock();

    /** Builds the manager and the floor's provider. */
    @Setup
    public void setUp() {
        manager = Fixture.manager();
        provider = new MemoryLockProvider();
        request = Fixture.request("uncontended", 0);
    }

    /** Closes the manager. */
    @TearDown
    public void tearDown() {
        manager.close();
    }

    /** @return the token of one acquire and release through txlock */
    @Benchmark
    public long txlock() {
        return Fixture.cycle(manager, "uncontended");
    }

    /** @return the token of the provider's bare take and give back */
    @Benchmark
    public long floor() {
        return Fixture.bareCycle(provider, request);
    }

    /** @return the hold count inside one lock and unlock of a {@link ReentrantLock} */
    @Benchmark
    public int juc() {
        lock.lock();
        try {
            return lock.getHoldCount();
        } finally {
            lock.unlock();
        }
    }
}
