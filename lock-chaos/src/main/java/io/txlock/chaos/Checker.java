package io.txlock.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads the histories of one run and the resource's log, and finds every broken promise:
 * <ul>
 *   <li>{@code exclusion}: two grants of different holders whose [grant, last {@code isValid() == true}] intervals
 *       overlap, or a grant whose validity came back after it was false;</li>
 *   <li>{@code fencing}: the resource accepted writes out of token order, or lost or invented one;</li>
 *   <li>{@code token}: two grants with one token, or a grant requested after another was granted with a token not
 *       above it;</li>
 *   <li>{@code stuck}: a lock still not granted to anyone else later than the backend's bound plus slack after its
 *       holder was killed (or paused, where a lease should free it);</li>
 *   <li>{@code recovery}: a holder that lived through a fault and got no grant within the recovery bound after it;</li>
 *   <li>{@code exception}: an exception of the lock API other than the documented ones, a failed resource write, or
 *       a holder JVM that did not end cleanly.</li>
 * </ul>
 * Overlaps that a documented limit allows (the backend's {@link ChaosBackend#exclusionGapAfterBackendFault}) are
 * not violations; they are counted as excused.
 */
final class Checker {

    /** Exceptions the API documents, by class name. */
    static final Set<String> DOCUMENTED = Set.of("io.txlock.LockTimeoutException", "io.txlock.LockNotHeldException",
            "io.txlock.LockBackendException", "io.txlock.LockInterruptedException");
    private static final int MAX_DETAILS = 20;

    /**
     * The bounds a run is held to.
     *
     * @param deadHolderBound how long a dead holder's lock may stay taken
     * @param slack added to that bound: scheduling on a loaded machine
     * @param pausedHolderKeepsLock whether a paused holder keeps the lock by design (row locks)
     * @param exclusionGap the documented window after a backend fault (zero if none)
     * @param recoveryBound how soon after a fault every surviving holder must be granted again
     */
    record Limits(Duration deadHolderBound, Duration slack, boolean pausedHolderKeepsLock, Duration exclusionGap,
            Duration recoveryBound) {
    }

    /**
     * Everything recorded in a run.
     *
     * @param events the holders' and the controller's histories
     * @param writes the resource's log of accepted writes, in acceptance order
     * @param resourceValue the resource's counter
     * @param killed the holders killed on purpose
     * @param holderEnds for each holder that was not killed: null if it ended with status 0, else what went wrong
     * @param limits the bounds
     */
    record Observations(List<Event> events, List<Resource.Write> writes, long resourceValue, Set<String> killed,
            Map<String, String> holderEnds, Limits limits) {
    }

    /** A broken promise. */
    record Violation(String check, String message) {
        @Override
        public String toString() {
            return check + ": " + message;
        }
    }

    /** The outcome, with the figures of the report. */
    record Verdict(List<Violation> violations, List<String> excused, int grants, int accepted, int refused, int lost,
            Map<FaultKind, Integer> faults, Duration longestStuckAfterKill, Duration longestStuckAfterPause,
            Duration longestRecovery, Map<String, Integer> exceptions) {
    }

    /** One grant, rebuilt from its holder's history. */
    static final class Grant {
        final String holder;
        final long token;
        final long requested;
        final long granted;
        long lastValid = -1;
        long ended = -1;
        boolean invalidSeen;

        Grant(String holder, long token, long requested, long granted) {
            this.holder = holder;
            this.token = token;
            this.requested = requested;
            this.granted = granted;
        }

        @Override
        public String toString() {
            return holder + " token " + token;
        }
    }

    private record Fault(FaultKind kind, String victim, long begin, long end) {
    }

    private final Observations o;
    private final List<Violation> violations = new ArrayList<>();
    private final Map<String, Integer> overflow = new TreeMap<>();
    private final List<String> excused = new ArrayList<>();
    private final List<Grant> grants = new ArrayList<>();
    private final List<Fault> faults = new ArrayList<>();
    private final Map<String, Long> started = new HashMap<>();
    private final Map<String, Integer> exceptions = new TreeMap<>();
    private final long origin;
    private int accepted;
    private int refused;
    private int lost;

    private Checker(Observations o) {
        this.o = o;
        this.origin = o.events().stream().mapToLong(Event::nanos).min().orElse(0);
    }

    static Verdict check(Observations observations) {
        return new Checker(observations).verdict();
    }

    private Verdict verdict() {
        rebuild();
        exclusion();
        fencing();
        tokens();
        Duration[] stuck = stuck();
        Duration recovery = recovery();
        holderEnds();
        overflow.forEach((check, more) -> violations.add(new Violation(check, more + " more of the same kind")));
        Map<FaultKind, Integer> byKind = new EnumMap<>(FaultKind.class);
        faults.forEach(f -> byKind.merge(f.kind(), 1, Integer::sum));
        return new Verdict(List.copyOf(violations), List.copyOf(excused), grants.size(), accepted, refused, lost, byKind,
                stuck[0], stuck[1], recovery, exceptions);
    }

    private void violation(String check, String message) {
        if (violations.stream().filter(v -> v.check().equals(check)).count() < MAX_DETAILS) {
            violations.add(new Violation(check, message));
        } else {
            overflow.merge(check, 1, Integer::sum);
        }
    }

    private String at(long nanos) {
        return String.format("t=%.3fs", (nanos - origin) / 1e9);
    }

    private void rebuild() {
        Map<String, Long> requested = new HashMap<>();
        Map<String, Grant> current = new HashMap<>();
        Map<String, Event> openFaults = new LinkedHashMap<>();
        List<Event> events = new ArrayList<>(o.events());
        events.sort(Comparator.comparingLong(Event::nanos));
        for (Event e : events) {
            Grant g = current.get(e.actor());
            switch (e.kind()) {
                case START -> {
                    if (!e.actor().equals(Event.CONTROLLER)) {
                        started.putIfAbsent(e.actor(), e.nanos());
                    }
                }
                case REQ -> requested.put(e.actor(), e.nanos());
                case GRANT -> {
                    Grant grant = new Grant(e.actor(), e.token(), requested.getOrDefault(e.actor(), e.nanos()), e.nanos());
                    grants.add(grant);
                    current.put(e.actor(), grant);
                }
                case VALID -> {
                    if (g != null && g.token == e.token()) {
                        if (e.valid()) {
                            if (g.invalidSeen) {
                                violation("exclusion", g + " was valid again at " + at(e.nanos()) + " after isValid() had been false");
                            }
                            g.lastValid = Math.max(g.lastValid, e.nanos());
                        } else {
                            g.invalidSeen = true;
                        }
                    }
                }
                case WRITE -> {
                    if (e.accepted()) {
                        accepted++;
                    } else {
                        refused++;
                    }
                }
                case REL -> {
                    if (g != null) {
                        g.ended = e.nanos();
                    }
                    current.remove(e.actor());
                }
                case LOST -> lost++;
                case EXC -> exception(e, g);
                case RESERR -> violation("exception", e.actor() + " could not write the resource at " + at(e.nanos())
                        + " (never faulted: the evidence of fencing is incomplete): " + e.detail());
                case FAULT_BEGIN -> openFaults.put(e.detail().split(" ", 2)[0], e);
                case FAULT_END -> {
                    Event begin = openFaults.remove(e.detail().split(" ", 2)[0]);
                    String[] what = e.detail().split(" ", 2);
                    faults.add(new Fault(FaultKind.valueOf(what[0]), what.length > 1 ? what[1] : "",
                            begin != null ? begin.nanos() : e.nanos(), e.nanos()));
                }
                case END -> current.remove(e.actor());
                default -> {
                }
            }
        }
        openFaults.values().forEach(b -> {
            String[] what = b.detail().split(" ", 2);
            faults.add(new Fault(FaultKind.valueOf(what[0]), what.length > 1 ? what[1] : "", b.nanos(), Long.MAX_VALUE));
        });
    }

    private void exception(Event e, Grant g) {
        String[] f = e.detail().split(" ", 3);
        String phase = f[0];
        String type = f.length > 1 ? f[1] : "?";
        exceptions.merge(type.substring(type.lastIndexOf('.') + 1), 1, Integer::sum);
        if ("release".equals(phase) && g != null) {
            g.ended = e.nanos();
            if (type.equals("io.txlock.LockNotHeldException")) {
                g.invalidSeen = true;
            }
        }
        boolean closedManager = "close".equals(phase) && type.equals(IllegalStateException.class.getName());
        if (!DOCUMENTED.contains(type) && !closedManager) {
            violation("exception", e.actor() + " got " + type + " in " + phase + " at " + at(e.nanos()) + ": "
                    + (f.length > 2 ? f[2] : ""));
        }
    }

    private void exclusion() {
        List<Grant> claimed = grants.stream().filter(g -> g.lastValid >= 0)
                .sorted(Comparator.comparingLong(g -> g.granted)).toList();
        Map<Grant, List<Grant>> overlapping = new LinkedHashMap<>();
        List<Grant> open = new ArrayList<>();
        for (Grant g : claimed) {
            open.removeIf(a -> a.lastValid <= g.granted);
            for (Grant a : open) {
                if (a.holder.equals(g.holder)) {
                    continue;
                }
                Fault excuse = excuse(a, g);
                if (excuse != null) {
                    excused.add(describe(a) + " and " + describe(g) + ": within " + o.limits().exclusionGap().toMillis()
                            + " ms after the " + excuse.kind().label() + " at " + at(excuse.begin()) + " (documented limit)");
                } else {
                    overlapping.computeIfAbsent(a, k -> new ArrayList<>()).add(g);
                }
            }
            open.add(g);
        }
        overlapping.forEach((a, later) -> {
            String cause = faults.stream().filter(f -> f.begin() > a.granted && f.begin() < a.lastValid
                            && (f.kind().backend() || f.victim().equals(a.holder)))
                    .map(f -> "; during it: the " + f.kind().label() + (f.victim().isEmpty() ? "" : " of " + f.victim())
                            + " from " + at(f.begin()) + " to " + at(f.end()))
                    .findFirst().orElse("");
            violation("exclusion", describe(a) + " was still valid while " + later.size() + " later grant(s) of other"
                    + " holders were valid, the first " + describe(later.get(0)) + cause);
        });
    }

    private String describe(Grant g) {
        return g + " (granted " + at(g.granted) + ", last valid " + at(g.lastValid) + ")";
    }

    private Fault excuse(Grant earlier, Grant later) {
        if (o.limits().exclusionGap().isZero()) {
            return null;
        }
        for (Fault f : faults) {
            if (f.kind() == FaultKind.RESTART_SERVER && earlier.granted < f.begin() && later.granted >= f.begin()
                    && later.granted <= f.end() + o.limits().exclusionGap().toNanos()) {
                return f;
            }
        }
        return null;
    }

    private void fencing() {
        long last = Long.MIN_VALUE;
        boolean first = true;
        for (Resource.Write w : o.writes()) {
            if (!first && w.token() <= last) {
                violation("fencing", "the resource accepted token " + w.token() + " of " + w.holder() + " after token " + last);
            }
            last = w.token();
            first = false;
        }
        if (o.resourceValue() != o.writes().size()) {
            violation("fencing", "the resource counted " + o.resourceValue() + " writes but logged " + o.writes().size());
        }
        Set<String> logged = new HashSet<>();
        o.writes().forEach(w -> logged.add(w.holder() + "/" + w.token()));
        Set<String> told = new HashSet<>();
        for (Event e : o.events()) {
            if (e.accepted()) {
                String key = e.actor() + "/" + e.token();
                told.add(key);
                if (!logged.contains(key)) {
                    violation("fencing", e.actor() + " was told its write with token " + e.token() + " was accepted, but the resource has no such write");
                }
            }
        }
        for (Resource.Write w : o.writes()) {
            if (!told.contains(w.holder() + "/" + w.token()) && !o.killed().contains(w.holder())) {
                violation("fencing", "the resource accepted a write of " + w.holder() + " with token " + w.token() + " that its holder never saw accepted");
            }
        }
    }

    private void tokens() {
        Map<Long, Grant> byToken = new HashMap<>();
        for (Grant g : grants) {
            Grant before = byToken.putIfAbsent(g.token, g);
            if (before != null) {
                violation("token", "token " + g.token + " granted twice: to " + before.holder + " at " + at(before.granted)
                        + " and to " + g.holder + " at " + at(g.granted));
            }
        }
        List<Grant> byGrant = grants.stream().sorted(Comparator.comparingLong(g -> g.granted)).toList();
        List<Grant> byRequest = grants.stream().sorted(Comparator.comparingLong(g -> g.requested)).toList();
        Grant highest = null;
        int i = 0;
        for (Grant b : byRequest) {
            while (i < byGrant.size() && byGrant.get(i).granted < b.requested) {
                Grant a = byGrant.get(i++);
                if (highest == null || a.token > highest.token) {
                    highest = a;
                }
            }
            if (highest != null && highest.token >= b.token && highest != b) {
                violation("token", b + " requested at " + at(b.requested) + " after " + highest + " was granted at "
                        + at(highest.granted) + ", but its token is not higher");
            }
        }
    }

    private Duration[] stuck() {
        Duration afterKill = Duration.ZERO;
        Duration afterPause = Duration.ZERO;
        Duration bound = o.limits().deadHolderBound().plus(o.limits().slack());
        for (Fault f : faults) {
            if (f.kind().backend()) {
                continue;
            }
            boolean holding = grants.stream().anyMatch(g -> g.holder.equals(f.victim()) && g.granted < f.begin()
                    && (g.ended < 0 || g.ended > f.begin()));
            if (!holding) {
                continue;
            }
            Grant next = grants.stream().filter(g -> !g.holder.equals(f.victim()) && g.granted > f.begin())
                    .min(Comparator.comparingLong(g -> g.granted)).orElse(null);
            boolean bounded = f.kind() == FaultKind.KILL_HOLDER || !o.limits().pausedHolderKeepsLock();
            if (next == null) {
                violation(bounded ? "stuck" : "recovery", "after the " + f.kind().label() + " of " + f.victim() + " at "
                        + at(f.begin()) + " nobody else was ever granted the lock");
                continue;
            }
            Duration stuck = Duration.ofNanos(next.granted - f.begin());
            if (f.kind() == FaultKind.KILL_HOLDER) {
                afterKill = max(afterKill, stuck);
            } else {
                afterPause = max(afterPause, stuck);
            }
            if (bounded && stuck.compareTo(bound) > 0) {
                violation("stuck", "after the " + f.kind().label() + " of " + f.victim() + " (holding) at " + at(f.begin())
                        + " the lock was next granted " + stuck.toMillis() + " ms later, past " + bound.toMillis() + " ms");
            }
        }
        return new Duration[] {afterKill, afterPause};
    }

    private Duration recovery() {
        Duration longest = Duration.ZERO;
        for (Fault f : faults) {
            if (f.end() == Long.MAX_VALUE) {
                violation("recovery", "the " + f.kind().label() + " at " + at(f.begin()) + " never ended");
                continue;
            }
            Grant first = grants.stream().filter(g -> g.granted > f.end() && g.lastValid >= 0)
                    .min(Comparator.comparingLong(g -> g.granted)).orElse(null);
            if (first == null) {
                violation("recovery", "after the " + f.kind().label() + " ending at " + at(f.end()) + " no holder was granted a valid lock");
                continue;
            }
            if (f.kind().backend()) {
                longest = max(longest, Duration.ofNanos(first.granted - f.end()));
            }
            long deadline = f.end() + o.limits().recoveryBound().toNanos();
            started.forEach((holder, since) -> {
                if (since < f.begin() && killedAt(holder) > deadline
                        && grants.stream().noneMatch(g -> g.holder.equals(holder) && g.granted > f.end() && g.granted <= deadline)) {
                    violation("recovery", holder + " lived through the " + f.kind().label() + " ending at " + at(f.end())
                            + " but was not granted the lock within " + o.limits().recoveryBound().toSeconds() + " s after it");
                }
            });
        }
        return longest;
    }

    /** @return when the controller killed {@code holder}, or {@link Long#MAX_VALUE} if it never did */
    private long killedAt(String holder) {
        return faults.stream().filter(f -> f.kind() == FaultKind.KILL_HOLDER && f.victim().equals(holder))
                .mapToLong(Fault::begin).min().orElse(o.killed().contains(holder) ? Long.MIN_VALUE : Long.MAX_VALUE);
    }

    private void holderEnds() {
        o.holderEnds().forEach((holder, problem) -> {
            if (problem != null) {
                violation("exception", holder + " " + problem);
            }
        });
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
