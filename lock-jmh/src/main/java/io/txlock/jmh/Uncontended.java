package io.txlock.jmh;

import io.txlock.spi.LockRequest;
import java.util.concurrent.locks.ReentrantLock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Threads;

/**
 * One thread, one name, nobody else: acquire and release through txlock ({@link #txlock}), beside the in-memory
 * provider's bare take and give back ({@link #floor}) and a {@link ReentrantLock} ({@link #juc}).
 */
@Threads(1)
public class Uncontended extends ManagerBenchmark {

    private final LockRequest request = Fixture.request("uncontended", 0);
    private final ReentrantLock lock = new ReentrantLock();

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
        return Fixture.jucCycle(lock);
    }
}
