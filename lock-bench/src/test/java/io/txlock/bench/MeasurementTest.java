package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Only what finishes inside the measured window is measured; everything is checked. */
class MeasurementTest {

    private static final long FROM = 1_000_000;
    private static final long TO = 3_000_000;

    private static CriticalSection releasedAt(int worker, String name, long released) {
        return new CriticalSection(worker, name, released, released - 400, released - 300, released - 200, released);
    }

    @Test
    void theWindowStartsAfterTheWarmUpAndEndsBeforeItsEnd() {
        Timing.Window window = new Timing(Duration.ofNanos(500), Duration.ofNanos(1000)).window(10_000);

        assertThat(window).isEqualTo(new Timing.Window(10_500, 11_500));
        assertThat(window.contains(10_499)).isFalse();
        assertThat(window.contains(10_500)).isTrue();
        assertThat(window.contains(11_499)).isTrue();
        assertThat(window.contains(11_500)).isFalse();
        assertThat(window.seconds()).isEqualTo(1e-6);
    }

    @Test
    void countsOnlyOperationsReleasedInsideTheWindowButChecksAndCountsEverySection() {
        List<CriticalSection> sections = List.of(releasedAt(0, "a", FROM - 1), releasedAt(1, "b", FROM), releasedAt(2, "c", 2_000_000),
                releasedAt(3, "d", TO - 1), releasedAt(0, "e", TO), releasedAt(1, "f", TO + 500_000));

        Measurement m = Measurement.ofLocks("txlock", "", new ClusterOutcome(sections, 0, 0, List.of(), FROM, TO, null));

        assertThat(m.ops()).isEqualTo(3);
        assertThat(m.seconds()).isEqualTo(0.002);
        assertThat(m.throughput()).isEqualTo(1500.0);
        assertThat(m.latency().count()).isEqualTo(3);
        assertThat(m.acquire().count()).isEqualTo(3);
        assertThat(m.finished()).isEqualTo(6);
        assertThat(m.verdict().sections()).isEqualTo(6);
    }

    @Test
    void grantsPerWorkerAreCountedInsideTheWindowANeverGrantedWorkerIncluded() {
        List<CriticalSection> sections = List.of(releasedAt(0, "a", FROM - 1), releasedAt(0, "a", FROM), releasedAt(0, "a", FROM + 10),
                releasedAt(0, "a", FROM + 20), releasedAt(1, "a", FROM + 30), releasedAt(1, "a", FROM + 40), releasedAt(2, "a", TO));
        ClusterOutcome outcome = new ClusterOutcome(sections, 0, 0, List.of(), FROM, TO, null);

        Measurement two = Measurement.ofLocks("txlock", "", outcome, 2);
        assertThat(two.count(Measurement.MOST_GRANTS)).isEqualTo(3);
        assertThat(two.count(Measurement.FEWEST_GRANTS)).isEqualTo(2);
        assertThat(two.fairness()).isEqualTo(1.5);
        assertThat(Format.fairness(two)).isEqualTo("1.50 (3/2)");
        assertThat(two.derived()).containsEntry("grantsMaxOverMin", 1.5);

        Measurement three = Measurement.ofLocks("txlock", "", outcome, 3);
        assertThat(three.fairness()).as("worker 2 was granted only after the window").isInfinite();
        assertThat(Format.fairness(three)).isEqualTo("inf (3/0)");

        Measurement one = Measurement.ofLocks("txlock", "", new ClusterOutcome(List.of(releasedAt(0, "a", FROM)), 0, 0, List.of(), FROM,
                TO, null), 1);
        assertThat(one.fairness()).isNaN();
        assertThat(Format.fairness(one)).isEqualTo("-");
    }

    @Test
    void measuresAHandoffOnlyToAWaitingHolderWhoStartsInsideTheWindow() {
        List<CriticalSection> sections = List.of(
                new CriticalSection(0, "a", 1, 0, 10, 900_000, 900_010),
                new CriticalSection(1, "a", 2, 500_000, 950_000, 1_100_000, 1_100_010),
                new CriticalSection(2, "a", 3, 1_000_000, 1_100_050, 1_180_000, 1_180_010),
                new CriticalSection(3, "a", 4, 1_190_000, 1_195_000, 2_999_000, 2_999_010),
                new CriticalSection(0, "a", 5, 2_000_000, 3_000_100, 3_100_000, 3_100_010));

        Latency handoffs = Measurement.handoffs(sections, new Timing.Window(FROM, TO));

        assertThat(handoffs.count()).as("the one from worker 1 to worker 2, 50 ns").isEqualTo(1);
        assertThat(handoffs.p50()).isEqualTo(0.05);
    }
}
