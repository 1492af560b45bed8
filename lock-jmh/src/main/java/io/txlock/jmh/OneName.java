package io.txlock.jmh;

import java.util.concurrent.locks.ReentrantLock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Threads;

/**
 * Eight threads of one manager on one name: every acquire after the first waits in the name's local FIFO queue and is
 * handed the lock by the release before it. Beside it a fair {@link ReentrantLock} ({@link #juc}), FIFO too; the
 * provider alone has no floor here, as it cannot wait.
 */
@Threads(8)
public class OneName extends ManagerBenchmark {

    private final ReentrantLock lock = new ReentrantLock(true);

    /** @return the token of one acquire and release through txlock */
    @Benchmark
    public long txlock() {
        return Fixture.cycle(manager, "one-name");
    }

    /** @return the hold count inside one lock and unlock of a fair {@link ReentrantLock} */
    @Benchmark
    public int juc() {
        return Fixture.jucCycle(lock);
    }
}
