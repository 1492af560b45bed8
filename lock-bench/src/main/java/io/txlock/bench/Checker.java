package io.txlock.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Proves a run was safe: no two holders of one name were inside their critical sections at the same time,
 * and fencing tokens only ever grew, in the order the holders got the lock. A lock that is broken in either
 * way fails here, whatever the timings say.
 *
 * <p>Sections of a holder that was killed never ended on their own: pass them with their end set to the moment
 * the process was killed.
 */
public final class Checker {

    private static final int EXAMPLES = 5;

    private Checker() {
    }

    /**
     * @param sections every critical section of the run, in any order
     * @return what was found
     */
    public static Verdict check(Collection<CriticalSection> sections) {
        Map<String, List<CriticalSection>> byName = new HashMap<>();
        for (CriticalSection s : sections) {
            byName.computeIfAbsent(s.name(), n -> new ArrayList<>()).add(s);
        }
        long overlaps = 0;
        long regressions = 0;
        List<String> examples = new ArrayList<>();
        for (List<CriticalSection> list : byName.values()) {
            list.sort(Comparator.comparingLong(CriticalSection::start).thenComparingLong(CriticalSection::end));
            CriticalSection latestEnding = null;
            CriticalSection previous = null;
            for (CriticalSection s : list) {
                if (s.end() < s.start()) {
                    throw new IllegalArgumentException("a section cannot end before it starts: " + s);
                }
                if (latestEnding != null && s.start() < latestEnding.end()) {
                    overlaps++;
                    example(examples, "overlap on '" + s.name() + "': worker " + latestEnding.worker() + " (token "
                            + token(latestEnding) + ") held it until " + latestEnding.end() + " ns, worker " + s.worker()
                            + " (token " + token(s) + ") got it at " + s.start() + " ns, "
                            + micros(latestEnding.end() - s.start()) + " too early");
                }
                if (previous != null && s.token() != CriticalSection.NO_TOKEN && previous.token() != CriticalSection.NO_TOKEN
                        && s.token() <= previous.token()) {
                    regressions++;
                    example(examples, "token went " + (s.token() == previous.token() ? "nowhere" : "backwards") + " on '"
                            + s.name() + "': worker " + previous.worker() + " held token " + previous.token()
                            + ", then worker " + s.worker() + " got token " + s.token());
                }
                if (latestEnding == null || s.end() > latestEnding.end()) {
                    latestEnding = s;
                }
                previous = s;
            }
        }
        return new Verdict(sections.size(), byName.size(), overlaps, regressions, List.copyOf(examples));
    }

    private static void example(List<String> examples, String text) {
        if (examples.size() < EXAMPLES) {
            examples.add(text);
        }
    }

    private static String token(CriticalSection s) {
        return s.token() == CriticalSection.NO_TOKEN ? "none" : Long.toString(s.token());
    }

    private static String micros(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.1f µs", nanos / 1000.0);
    }

    /**
     * The checker's findings.
     *
     * @param sections how many critical sections were checked
     * @param names over how many lock names
     * @param overlaps sections that began while another holder of the same name was still inside
     * @param tokenRegressions sections whose token was not greater than that of the holder before
     * @param examples the first few violations, described
     */
    public record Verdict(long sections, int names, long overlaps, long tokenRegressions, List<String> examples) {

        /** @return whether the run was safe */
        public boolean passed() {
            return overlaps == 0 && tokenRegressions == 0;
        }

        /** @return a short summary: "ok", or the counts of violations */
        public String summary() {
            if (passed()) {
                return "ok";
            }
            List<String> parts = new ArrayList<>();
            if (overlaps > 0) {
                parts.add(overlaps + " overlaps");
            }
            if (tokenRegressions > 0) {
                parts.add(tokenRegressions + " token regressions");
            }
            return "FAILED: " + String.join(", ", parts);
        }

        /**
         * @param other the verdict of another part of the same run
         * @return both together
         */
        public Verdict plus(Verdict other) {
            List<String> all = new ArrayList<>(examples);
            for (String e : other.examples) {
                example(all, e);
            }
            return new Verdict(sections + other.sections, names + other.names, overlaps + other.overlaps,
                    tokenRegressions + other.tokenRegressions, List.copyOf(all));
        }

        /** @return a verdict on nothing */
        public static Verdict empty() {
            return new Verdict(0, 0, 0, 0, List.of());
        }
    }
}
