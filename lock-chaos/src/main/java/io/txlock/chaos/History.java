package io.txlock.chaos;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A history file: one {@link Event} per line, each line handed to the operating system as soon as it is logged,
 * so that a holder killed with {@code kill -9} loses nothing it logged.
 */
final class History implements AutoCloseable {

    private final String actor;
    private final Writer out;

    private History(String actor, Writer out) {
        this.actor = actor;
        this.out = out;
    }

    static History append(Path file, String actor) {
        try {
            return new History(actor, Files.newBufferedWriter(file, StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the history " + file, e);
        }
    }

    /** Logs an event now. */
    void log(Event.Kind kind, long token, String detail) {
        log(System.nanoTime(), kind, token, detail);
    }

    /** Logs an event that happened at {@code nanos}. */
    synchronized void log(long nanos, Event.Kind kind, long token, String detail) {
        try {
            out.write(new Event(nanos, actor, kind, token, detail).toLine());
            out.write('\n');
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the history of " + actor, e);
        }
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<Event> read(Path file) {
        List<Event> events = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                Event e = Event.parse(line);
                if (e != null) {
                    events.add(e);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the history " + file, e);
        }
        return events;
    }

    /** @return the last complete event of the file, reading only its end */
    static Optional<Event> last(Path file) {
        List<Event> tail = tail(file);
        return tail.isEmpty() ? Optional.empty() : Optional.of(tail.get(tail.size() - 1));
    }

    /** @return the complete events in the last 8 KiB of the file (none if it does not exist yet) */
    static List<Event> tail(Path file) {
        List<Event> events = new ArrayList<>();
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            long length = in.length();
            int size = (int) Math.min(length, 8192);
            byte[] bytes = new byte[size];
            in.seek(length - size);
            in.readFully(bytes);
            String text = new String(bytes, StandardCharsets.UTF_8);
            String[] lines = text.split("\n");
            int complete = text.endsWith("\n") ? lines.length : lines.length - 1;
            for (int i = size < length ? 1 : 0; i < complete; i++) {
                Event e = Event.parse(lines[i]);
                if (e != null) {
                    events.add(e);
                }
            }
        } catch (IOException e) {
            // not written yet
        }
        return events;
    }
}
