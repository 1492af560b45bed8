package io.txlock.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.chaos.Event.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The checker on hand-written histories: each broken promise is found, and a clean history passes. */
class CheckerTest {

    private static final Checker.Limits LIMITS = new Checker.Limits(Duration.ofSeconds(2), Duration.ofSeconds(1), false,
            Duration.ZERO, Duration.ofSeconds(10));

    private final List<Event> events = new ArrayList<>();
    private final List<Resource.Write> writes = new ArrayList<>();
    private final Map<String, String> ends = new HashMap<>();
    private Set<String> killed = Set.of();
    private Checker.Limits limits = LIMITS;

    private void log(long millis, String actor, Kind kind, long token, String detail) {
        events.add(new Event(millis * 1_000_000, actor, kind, token, detail));
    }

    /** A whole round of a holder: request, grant, two valid checks, an accepted write, release. */
    private void round(String holder, long token, long requested, long granted, long released) {
        log(requested, holder, Kind.REQ, 0, "chaos");
        log(granted, holder, Kind.GRANT, token, "");
        log(granted + 1, holder, Kind.VALID, token, "true");
        log(released - 2, holder, Kind.VALID, token, "true");
        log(released - 1, holder, Kind.WRITE, token, "accepted");
        writes.add(new Resource.Write(writes.size() + 1, token, holder, writes.size() + 1));
        log(released, holder, Kind.REL, token, "");
    }

    private void start(String... holders) {
        for (String h : holders) {
            log(0, h, Kind.START, 0, "pid 1");
            ends.put(h, null);
        }
    }

    private Checker.Verdict check() {
        return Checker.check(new Checker.Observations(events, writes, writes.size(), killed, ends, limits));
    }

    private static List<String> checks(Checker.Verdict v) {
        return v.violations().stream().map(Checker.Violation::check).toList();
    }

    @Test
    void aCleanHistoryPasses() {
        start("a", "b");
        round("a", 1, 10, 20, 100);
        round("b", 2, 30, 110, 200);
        round("a", 3, 120, 210, 300);
        Checker.Verdict v = check();
        assertThat(v.violations()).isEmpty();
        assertThat(v.grants()).isEqualTo(3);
        assertThat(v.accepted()).isEqualTo(3);
    }

    @Test
    void twoHoldersValidAtOnceAreAViolation() {
        start("a", "b");
        round("a", 1, 10, 20, 100);
        round("b", 2, 30, 90, 200);
        assertThat(checks(check())).containsExactly("exclusion");
    }

    @Test
    void anOverlapRightAfterAServerFaultIsExcusedOnlyWhereALimitIsDocumented() {
        start("a", "b");
        round("a", 1, 10, 20, 1000);
        log(400, Event.CONTROLLER, Kind.FAULT_BEGIN, 0, "RESTART_SERVER");
        log(500, Event.CONTROLLER, Kind.FAULT_END, 0, "RESTART_SERVER");
        round("b", 2, 30, 600, 1100);
        round("a", 3, 1001, 1101, 1200);
        assertThat(checks(check())).containsExactly("exclusion");

        limits = new Checker.Limits(LIMITS.deadHolderBound(), LIMITS.slack(), false, Duration.ofSeconds(2), LIMITS.recoveryBound());
        Checker.Verdict v = check();
        assertThat(v.violations()).isEmpty();
        assertThat(v.excused()).hasSize(1);
    }

    @Test
    void validityComingBackIsAViolation() {
        start("a");
        log(0, "a", Kind.REQ, 0, "chaos");
        log(1, "a", Kind.GRANT, 1, "");
        log(2, "a", Kind.VALID, 1, "false");
        log(3, "a", Kind.VALID, 1, "true");
        assertThat(checks(check())).containsExactly("exclusion");
    }

    @Test
    void aReusedOrBackwardsTokenIsAViolation() {
        start("a", "b");
        round("a", 5, 10, 20, 100);
        round("b", 5, 110, 120, 200);
        assertThat(checks(check())).contains("token");

        events.clear();
        writes.clear();
        start("a", "b");
        round("a", 5, 10, 20, 100);
        log(110, "b", Kind.REQ, 0, "chaos");
        log(120, "b", Kind.GRANT, 4, "");
        assertThat(checks(check())).containsExactly("token");
    }

    @Test
    void aWriteAcceptedOutOfOrderOrNeverLoggedIsAViolation() {
        start("a", "b");
        round("a", 1, 10, 20, 100);
        round("b", 2, 110, 120, 200);
        writes.add(new Resource.Write(3, 1, "a", 3));
        assertThat(checks(check())).contains("fencing");

        writes.remove(2);
        writes.remove(1);
        assertThat(checks(check())).contains("fencing");
    }

    @Test
    void aLockNotFreedWithinTheBoundAfterItsHolderWasKilledIsStuck() {
        start("a", "b");
        killed = Set.of("a");
        ends.remove("a");
        log(0, "a", Kind.REQ, 0, "chaos");
        log(10, "a", Kind.GRANT, 1, "");
        log(11, "a", Kind.VALID, 1, "true");
        log(100, Event.CONTROLLER, Kind.FAULT_BEGIN, 0, "KILL_HOLDER a");
        log(110, Event.CONTROLLER, Kind.FAULT_END, 0, "KILL_HOLDER a");
        round("b", 2, 50, 100 + 3001, 100 + 3100);
        Checker.Verdict v = check();
        assertThat(checks(v)).containsExactly("stuck");
        assertThat(v.longestStuckAfterKill()).isEqualTo(Duration.ofMillis(3001));
    }

    @Test
    void aPausedRowLockHolderMayKeepTheLockButIsMeasured() {
        start("a", "b");
        log(0, "a", Kind.REQ, 0, "chaos");
        log(10, "a", Kind.GRANT, 1, "");
        log(11, "a", Kind.VALID, 1, "true");
        log(100, Event.CONTROLLER, Kind.FAULT_BEGIN, 0, "PAUSE_HOLDER a");
        log(5100, Event.CONTROLLER, Kind.FAULT_END, 0, "PAUSE_HOLDER a");
        log(5101, "a", Kind.VALID, 1, "false");
        log(5102, "a", Kind.EXC, 1, "release io.txlock.LockNotHeldException lost");
        round("b", 2, 50, 5103, 5200);
        round("a", 3, 5201, 5202, 5300);
        assertThat(checks(check())).containsExactly("stuck");

        limits = new Checker.Limits(LIMITS.deadHolderBound(), LIMITS.slack(), true, Duration.ZERO, LIMITS.recoveryBound());
        Checker.Verdict v = check();
        assertThat(v.violations()).isEmpty();
        assertThat(v.longestStuckAfterPause()).isEqualTo(Duration.ofMillis(5003));
    }

    @Test
    void aSurvivorNeverGrantedAgainAfterARestartIsAViolation() {
        start("a", "b");
        round("a", 1, 10, 20, 100);
        round("b", 2, 110, 120, 200);
        log(300, Event.CONTROLLER, Kind.FAULT_BEGIN, 0, "RESTART_SERVER");
        log(400, Event.CONTROLLER, Kind.FAULT_END, 0, "RESTART_SERVER");
        round("a", 3, 410, 420, 500);
        Checker.Verdict v = check();
        assertThat(v.violations()).singleElement().satisfies(x -> assertThat(x.message()).startsWith("b lived through"));
        assertThat(v.longestRecovery()).isEqualTo(Duration.ofMillis(20));
    }

    @Test
    void aHolderKilledLongAfterAFaultMustHaveRecoveredFromIt() {
        start("a", "b");
        round("a", 1, 10, 20, 100);
        round("b", 2, 110, 120, 200);
        log(300, Event.CONTROLLER, Kind.FAULT_BEGIN, 0, "RESTART_SERVER");
        log(400, Event.CONTROLLER, Kind.FAULT_END, 0, "RESTART_SERVER");
        round("a", 3, 410, 420, 500);
        log(20_000, Event.CONTROLLER, Kind.FAULT_BEGIN, 0, "KILL_HOLDER b");
        log(20_010, Event.CONTROLLER, Kind.FAULT_END, 0, "KILL_HOLDER b");
        killed = Set.of("b");
        ends.remove("b");
        round("a", 4, 20_100, 20_110, 20_200);
        assertThat(check().violations()).singleElement()
                .satisfies(x -> assertThat(x.message()).startsWith("b lived through the restart"));
    }

    @Test
    void onlyDocumentedExceptionsAreAllowed() {
        start("a");
        log(1, "a", Kind.EXC, 0, "acquire io.txlock.LockTimeoutException not granted");
        log(2, "a", Kind.EXC, 0, "acquire io.txlock.LockBackendException down");
        log(3, "a", Kind.EXC, 0, "close java.lang.IllegalStateException closed");
        assertThat(check().violations()).isEmpty();

        log(4, "a", Kind.EXC, 0, "acquire java.lang.IllegalStateException closed");
        log(5, "a", Kind.EXC, 0, "acquire java.lang.ArithmeticException long overflow");
        assertThat(checks(check())).containsExactly("exception", "exception");
    }

    @Test
    void aHolderThatDidNotEndCleanlyIsAViolation() {
        start("a");
        ends.put("a", "exited with status 1");
        assertThat(checks(check())).containsExactly("exception");
    }
}
