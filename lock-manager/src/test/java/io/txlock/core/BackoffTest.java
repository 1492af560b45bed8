package io.txlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The pauses between attempts of a waiter whose provider answers at once. */
class BackoffTest {

    @Test
    void pausesDoubleFromOneMillisecondToTheCapEachDrawnBetweenHalfAndAllOfItsBound() {
        Backoff backoff = new Backoff();
        long bound = Backoff.FIRST_NANOS;
        for (int i = 0; i < 12; i++) {
            long pause = backoff.pauseNanos(false, null);
            assertThat(pause).as("pause %d (bound %d ns)", i, bound).isBetween(bound / 2, bound);
            bound = Math.min(Backoff.MAX_NANOS, bound * 2);
        }
        assertThat(bound).isEqualTo(Backoff.MAX_NANOS);
    }

    @Test
    void cappedPausesAreJitteredSoThatWaitersOfManyNodesSpreadOut() {
        Backoff backoff = new Backoff();
        for (int i = 0; i < 10; i++) {
            backoff.pauseNanos(false, null);
        }
        List<Long> pauses = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            pauses.add(backoff.pauseNanos(false, null));
        }
        assertThat(pauses).allMatch(p -> p >= Backoff.MAX_NANOS / 2 && p <= Backoff.MAX_NANOS);
        Set<Long> distinct = new HashSet<>(pauses);
        assertThat(distinct).as("distinct values among 200 capped pauses").hasSizeGreaterThan(100);
        long belowMiddle = pauses.stream().filter(p -> p < Backoff.MAX_NANOS * 3 / 4).count();
        assertThat(belowMiddle).as("capped pauses in the lower half of [cap/2, cap]").isBetween(40L, 160L);
    }

    @Test
    void aWakeUpHintMakesThePauseASafetyNetOnly() {
        Backoff backoff = new Backoff();
        for (int i = 0; i < 3; i++) {
            assertThat(backoff.pauseNanos(true, null)).isEqualTo(Backoff.HINTED_NANOS);
        }
        assertThat(backoff.pauseNanos(false, null)).as("the first unhinted pause after hinted ones")
                .isBetween(Backoff.FIRST_NANOS / 2, Backoff.FIRST_NANOS);
    }

    @Test
    void aHolderWhoseLeaseEndsSoonerIsRetriedWhenItEnds() {
        Backoff backoff = new Backoff();
        assertThat(backoff.pauseNanos(true, Duration.ofMillis(20))).isEqualTo(Duration.ofMillis(20).toNanos());
        assertThat(backoff.pauseNanos(true, Duration.ZERO)).as("an expired holder: the shortest pause")
                .isEqualTo(Backoff.FIRST_NANOS);
        assertThat(backoff.pauseNanos(true, Duration.ofHours(1))).isEqualTo(Backoff.HINTED_NANOS);
    }
}
