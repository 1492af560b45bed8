package io.txlock.jmh;

import io.txlock.LockManager;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the benchmarks here share: how JMH runs them (a subclass says how many threads), a manager over a
 * {@link MemoryLockProvider} ({@link Fixture#manager()}), and a provider of its own for the floor, the provider's bare
 * cycle.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public abstract class ManagerBenchmark {

    LockManager manager;
    MemoryLockProvider provider;

    /** For the subclasses. */
    protected ManagerBenchmark() {
    }

    /** Builds the manager and the floor's provider. */
    @Setup
    public void setUp() {
        manager = Fixture.manager();
        provider = new MemoryLockProvider();
    }

    /** Closes the manager. */
    @TearDown
    public void tearDown() {
        manager.close();
    }
}
