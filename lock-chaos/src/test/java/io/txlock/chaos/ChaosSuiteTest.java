package io.txlock.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The chaos suite as part of the build: by default the short run (one cycle of every fault on PostgreSQL with two
 * strategies, MariaDB, Redis and ZooKeeper); {@code -Dchaos.duration=PT10M -Dchaos.runs=all} makes it the long run.
 * Each run is a test of its own that passes only with no violation; the table goes to target/chaos/chaos-report.md.
 */
class ChaosSuiteTest {

    private static ChaosSettings settings;
    private static ChaosSuite suite;

    @BeforeAll
    static void startResource() throws Exception {
        settings = ChaosSettings.fromSystemProperties();
        suite = new ChaosSuite(settings);
    }

    @AfterAll
    static void report() throws Exception {
        if (suite != null) {
            try {
                System.out.println(Report.table(suite.results()));
                System.out.println("report: " + suite.writeReport());
            } finally {
                suite.close();
            }
        }
    }

    @Test
    void aSplitBrainIsCaught() throws Exception {
        ChaosRun.Result result = suite.run(new SplitBrainBackend(), "PREFIX_PER_HOLDER");
        assertThat(result.verdict().violations()).as(Report.details(result))
                .extracting(Checker.Violation::check).contains("exclusion");
    }

    @TestFactory
    Stream<DynamicTest> everyRunPassesTheChecker() {
        List<ChaosSettings.Run> runs = settings.resolvedRuns();
        return runs.stream().map(run -> DynamicTest.dynamicTest(run.backend() + " " + run.strategy(), () -> {
            ChaosRun.Result result = suite.run(run);
            System.out.print(Report.details(result));
            assertThat(result.verdict().violations()).as(Report.details(result)).isEmpty();
            assertThat(result.verdict().grants()).as("grants in the run").isPositive();
            assertThat(result.verdict().faults()).as("faults injected").isNotEmpty();
        }));
    }
}
