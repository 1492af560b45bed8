package io.txlock.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * One critical section under a lock: who ran it, with which fencing token, from when to when. Times are
 * {@link System#nanoTime()} values, comparable between JVMs of one host (the OS monotonic clock).
 *
 * @param who the JVM and thread that held the lock
 * @param token the fencing token of the grant
 * @param start when the holder started, after the acquire returned
 * @param end when the holder finished, before it released
 */
record Section(String who, long token, long start, long end) {

    String toLine() {
        return token + " " + start + " " + end + " " + who;
    }

    /**
     * @param jvm the JVM that wrote {@code file}
     * @param file one {@link #toLine()} per line; may be missing if the JVM died
     * @return the sections in it
     */
    static List<Section> load(String jvm, Path file) throws IOException {
        if (!Files.exists(file)) {
            return List.of();
        }
        return Files.readAllLines(file, StandardCharsets.UTF_8).stream().map(line -> parse(jvm, line)).toList();
    }

    /** @return whether the runs of two JVMs, each from its first section's start to its last one's end, overlap */
    static boolean interleaved(List<Section> a, List<Section> b) {
        return !a.isEmpty() && !b.isEmpty() && first(a) < last(b) && first(b) < last(a);
    }

    private static long first(List<Section> sections) {
        return sections.stream().mapToLong(Section::start).min().orElseThrow();
    }

    private static long last(List<Section> sections) {
        return sections.stream().mapToLong(Section::end).max().orElseThrow();
    }

    static Section parse(String jvm, String line) {
        String[] parts = line.split(" ", 4);
        return new Section(jvm + " " + parts[3], Long.parseLong(parts[0]), Long.parseLong(parts[1]),
                Long.parseLong(parts[2]));
    }

    /**
     * @param sections sections of one lock name, in any order
     * @return every pair of sections, consecutive in time, that overlap or whose tokens do not strictly
     *     increase; empty if the lock excluded and fenced correctly
     */
    static List<String> violations(List<Section> sections) {
        List<Section> byStart = new ArrayList<>(sections);
        byStart.sort(Comparator.comparingLong(Section::start));
        List<String> violations = new ArrayList<>();
        Section latestEnding = null;
        Section previous = null;
        for (Section s : byStart) {
            if (latestEnding != null && s.start - latestEnding.end <= 0) {
                violations.add(s + " started before " + latestEnding + " ended (" + (latestEnding.end - s.start)
                        + " ns of overlap)");
            }
            if (previous != null && s.token <= previous.token) {
                violations.add(s + " came after " + previous + " with a token that is not greater");
            }
            if (latestEnding == null || s.end - latestEnding.end > 0) {
                latestEnding = s;
            }
            previous = s;
        }
        return violations;
    }

    @Override
    public String toString() {
        return "[" + who + ", token " + token + ", " + start + ".." + end + " ns]";
    }
}
