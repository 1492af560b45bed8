package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class CheckerTest {

    private static CriticalSection section(int worker, String name, long token, long start, long end) {
        return new CriticalSection(worker, name, token, start - 5, start, end, end + 5);
    }

    @Test
    void passesHoldersOneAfterAnotherWithGrowingTokens() {
        Checker.Verdict v = Checker.check(List.of(section(1, "a", 10, 100, 200), section(2, "a", 11, 200, 300),
                section(1, "a", 12, 350, 400)));

        assertThat(v.passed()).isTrue();
        assertThat(v.sections()).isEqualTo(3);
        assertThat(v.names()).isEqualTo(1);
        assertThat(v.summary()).isEqualTo("ok");
    }

    @Test
    void findsAHolderThatStartedBeforeThePreviousOneEnded() {
        Checker.Verdict v = Checker.check(List.of(section(2, "a", 11, 150, 300), section(1, "a", 10, 100, 200)));

        assertThat(v.passed()).isFalse();
        assertThat(v.overlaps()).isEqualTo(1);
        assertThat(v.tokenRegressions()).isZero();
        assertThat(v.examples()).singleElement().asString().contains("overlap on 'a'").contains("worker 1").contains("worker 2");
        assertThat(v.summary()).isEqualTo("FAILED: 1 overlaps");
    }

    @Test
    void comparesWithTheLatestEndNotJustThePreviousSection() {
        Checker.Verdict v = Checker.check(List.of(section(1, "a", 10, 100, 1000), section(2, "a", 11, 200, 300),
                section(3, "a", 12, 400, 500)));

        assertThat(v.overlaps()).isEqualTo(2);
    }

    @Test
    void findsTokensThatWentBackwardsOrStoodStillBetweenHolders() {
        Checker.Verdict v = Checker.check(List.of(section(1, "a", 10, 100, 200), section(2, "a", 9, 200, 300),
                section(3, "a", 9, 300, 400)));

        assertThat(v.overlaps()).isZero();
        assertThat(v.tokenRegressions()).isEqualTo(2);
        assertThat(v.examples()).anySatisfy(e -> assertThat(e).contains("backwards").contains("token 10").contains("token 9"));
        assertThat(v.examples()).anySatisfy(e -> assertThat(e).contains("nowhere"));
    }

    @Test
    void checksEachNameOnItsOwn() {
        Checker.Verdict v = Checker.check(List.of(section(1, "a", 10, 100, 200), section(2, "b", 3, 150, 250)));

        assertThat(v.passed()).isTrue();
        assertThat(v.names()).isEqualTo(2);
    }

    @Test
    void checksOnlyOverlapsForRawLocksWithoutTokens() {
        Checker.Verdict ok = Checker.check(List.of(section(1, "a", CriticalSection.NO_TOKEN, 100, 200),
                section(2, "a", CriticalSection.NO_TOKEN, 210, 300)));
        Checker.Verdict overlap = Checker.check(List.of(section(1, "a", CriticalSection.NO_TOKEN, 100, 200),
                section(2, "a", CriticalSection.NO_TOKEN, 150, 300)));

        assertThat(ok.passed()).isTrue();
        assertThat(overlap.overlaps()).isEqualTo(1);
    }

    @Test
    void refusesASectionThatEndsBeforeItStarts() {
        assertThatThrownBy(() -> Checker.check(List.of(section(1, "a", 1, 200, 100))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot end before it starts");
    }

    @Test
    void readsBackTheLineAWorkerJvmPrints() {
        CriticalSection s = new CriticalSection(7, "order: 42", 99, 1, 2, 3, 4);

        assertThat(CriticalSection.parse(s.toLine())).isEqualTo(s);
        assertThatThrownBy(() -> CriticalSection.parse("T")).isInstanceOf(IllegalArgumentException.class);
    }
}
