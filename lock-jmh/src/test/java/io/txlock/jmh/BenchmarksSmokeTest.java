package io.txlock.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/** Every benchmark runs, in this JVM, for one very short iteration: they work; how fast is for a real run to say. */
class BenchmarksSmokeTest {

    @Test
    void everyBenchmarkRunsAndCompletesOperations() throws RunnerException {
        Options options = new OptionsBuilder()
                .include(Uncontended.class.getName() + "\\.")
                .include(EightNames.class.getName() + "\\.")
                .include(OneName.class.getName() + "\\.")
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(100))
                .shouldFailOnError(true)
                .build();

        Collection<RunResult> results = new Runner(options).run();

        List<String> ran = results.stream().map(r -> r.getParams().getBenchmark().replace(getClass().getPackageName() + ".", ""))
                .toList();
        assertThat(ran).containsExactlyInAnyOrder("Uncontended.txlock", "Uncontended.floor", "Uncontended.juc",
                "EightNames.txlock", "EightNames.floor", "EightNames.juc", "OneName.txlock", "OneName.juc");
        assertThat(results).allSatisfy(r -> assertThat(r.getPrimaryResult().getScore()).as(r.getParams().getBenchmark())
                .isPositive());
    }
}
