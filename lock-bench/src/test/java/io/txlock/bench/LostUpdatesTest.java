package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lost updates counted from the shared counters: exact without a kill, and after a kill -9 neither fooled by an
 * increment the killed JVM did not live to report nor blind to a lost update beside it.
 */
class LostUpdatesTest {

    private static final long KILLED_AT = 1_000_000;
    private static final long HELD_SINCE = 900_000;

    private final List<CriticalSection> sections = new ArrayList<>();
    private long count;
    private long fingerprints;
    private long clock = 1000;

    /** A section reported by {@code worker}, whose increment is its {@code sequence}-th. */
    private void reported(int worker, long sequence, boolean counted) {
        clock += 100;
        sections.add(new CriticalSection(worker, "counter", clock, clock, clock + 10, clock + 20, clock + 30));
        if (counted) {
            counted(worker, sequence);
        }
    }

    private void counted(int worker, long sequence) {
        count++;
        fingerprints += FileCounters.fingerprint(worker, sequence);
    }

    private FileCounters.Total total() {
        return new FileCounters.Total(count, fingerprints);
    }

    /** Worker 0 of the JVM of workers 0 and 2 hangs holding the lock and is killed. */
    private KillReport killWorkerZero() {
        sections.add(new CriticalSection(0, "counter", 99, HELD_SINCE - 5, HELD_SINCE, KILLED_AT, KILLED_AT));
        return new KillReport(4242, 0, "counter", 99, HELD_SINCE, KILLED_AT, 3.0, 1, 100, true, List.of(0, 2));
    }

    @Test
    void countsNothingLostWhenTheCountersHoldEveryReportedIncrement() {
        reported(0, 0, true);
        reported(1, 0, true);
        reported(0, 1, true);

        LostUpdates lost = LostUpdates.count(sections, total(), null);

        assertThat(lost).isEqualTo(new LostUpdates(3, 3, 0, 0));
        assertThat(lost.failure("txlock")).isNull();
    }

    @Test
    void countsAReportedIncrementTheCountersDoNotHold() {
        reported(0, 0, true);
        reported(1, 0, false);
        reported(0, 1, true);

        LostUpdates lost = LostUpdates.count(sections, total(), null);

        assertThat(lost.lost()).isEqualTo(1);
        assertThat(lost.failure("txlock")).isEqualTo("txlock: 1 lost updates (3 increments under the lock, the counters hold 2)");
    }

    @Test
    void recognisesTheIncrementAKilledJvmsCoWorkerDidNotLiveToReport() {
        reported(2, 0, true);
        reported(1, 0, true);
        reported(2, 1, true);
        counted(2, 2);
        KillReport kill = killWorkerZero();

        LostUpdates lost = LostUpdates.count(sections, total(), kill);

        assertThat(lost).isEqualTo(new LostUpdates(3, 4, 1, 0));
        assertThat(lost.failure("txlock")).isNull();
    }

    @Test
    void stillFindsALostUpdateBesideAnUnreportedIncrementThatMakesTheCountsAgree() {
        reported(2, 0, true);
        reported(1, 0, false);
        reported(2, 1, true);
        counted(2, 2);
        KillReport kill = killWorkerZero();

        LostUpdates lost = LostUpdates.count(sections, total(), kill);

        assertThat(count).as("the counts alone would say nothing was lost").isEqualTo(3);
        assertThat(lost.lost()).isEqualTo(1);
        assertThat(lost.failure("txlock")).contains("1 lost updates").contains("but not those reported");
    }

    @Test
    void acceptsNoUnreportedIncrementFromAWorkerThatWasNotKilled() {
        reported(2, 0, true);
        reported(1, 0, true);
        counted(1, 1);
        KillReport kill = killWorkerZero();

        assertThat(LostUpdates.count(sections, total(), kill).lost()).isPositive();
    }

    @Test
    void theCountersFileAddsUpItsCountersIncrementsAndFingerprints(@TempDir Path dir) {
        Path file = dir.resolve("counters.bin");
        FileCounters.Total expected = new FileCounters.Total(3,
                FileCounters.fingerprint(0, 0) + FileCounters.fingerprint(1, 0) + FileCounters.fingerprint(1, 1));
        try (FileCounters counters = new FileCounters(file, 8); FileCounters other = new FileCounters(file, 8)) {
            assertThat(counters.total()).isEqualTo(new FileCounters.Total(0, 0));

            counters.increment(0, FileCounters.fingerprint(0, 0), 0);
            other.increment(7, FileCounters.fingerprint(1, 0), 0);
            counters.increment(7, FileCounters.fingerprint(1, 1), 0);

            assertThat(counters.total()).isEqualTo(expected);
        }
        try (FileCounters reopened = new FileCounters(file)) {
            assertThat(reopened.total()).as("the file, opened again as the bench reads it after a run").isEqualTo(expected);
        }
    }
}
