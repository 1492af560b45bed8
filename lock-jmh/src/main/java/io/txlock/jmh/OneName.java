package io.txlock.jmh;

import io.txlock.LockManager;
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
 * Eight threads of one manager on one name: every acquire after the first waits in the name's local FIFO queue and is
 * handed the lock by the release before it. Beside it a fair {@link ReentrantLock} ({@link #juc}), FIFO too; the
 * provider alone has no floor here, as it cannot wait.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(8)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class OneName {

    private LockManager manager;
    private final ReentrantLock lock = new ReentrantLock(true);

    /** Builds the manager. */
    @Setup
    public void setUp() {
        manager = Fixture.manager();
    }

    /** Closes the manager. */
    @TearDown
    public void tearDown() {
        manager.close();
    }

    /** @return the token of one acquire and release through txlock */
    @Benchmark
    public long txlock() {
        return Fixture.cycle(manager, "one-name");
    }

    /** @return the hold count inside one lock and unlock of a fair {@link ReentrantLock} */
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
