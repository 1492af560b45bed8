package io.txlock.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The shared counters of a lock scenario, one per lock name, in a file mapped into memory: each read and written
 * back plus one with no lock of their own, so that every process of the host sees the same values (one page cache)
 * and two holders of a name inside at once lose an update. Mapped, an increment is two memory accesses rather than
 * two system calls, so it adds next to nothing to the critical section of a fast floor such as in-memory H2. Beside
 * its count, a counter adds up the {@linkplain #fingerprint(int, long) fingerprints} of its increments, so that
 * {@link LostUpdates} can tell which increments it holds.
 */
final class FileCounters implements AutoCloseable {

    /** A counter: its count, then the sum of its increments' fingerprints. */
    private static final int SLOT = 2 * Long.BYTES;

    private final FileChannel channel;
    private final MappedByteBuffer slots;

    /**
     * @param file the counters' file, created if missing
     * @param counters how many counters (lock names) it holds at least
     */
    FileCounters(Path file, int counters) {
        try {
            this.channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.CREATE);
            this.slots = channel.map(FileChannel.MapMode.READ_WRITE, 0, Math.max(channel.size(), (long) counters * SLOT));
        } catch (IOException e) {
            throw new UncheckedIOException("could not map the counters file " + file, e);
        }
    }

    /** Opens an existing counters' file, all of it. */
    FileCounters(Path file) {
        this(file, 0);
    }

    /**
     * @param worker a worker
     * @param sequence how many increments that worker made before this one
     * @return a number that stands for this increment alone: no other worker's, no other of this worker's
     */
    static long fingerprint(int worker, long sequence) {
        long z = ((long) worker << 40 | sequence) + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * Reads counter {@code slot}, waits {@code holdNanos}, writes it back plus one, with {@code fingerprint} added.
     *
     * @param slot the counter of the i-th lock name
     * @param fingerprint the increment's {@link #fingerprint(int, long)}
     * @param holdNanos the pause between read and write
     */
    void increment(int slot, long fingerprint, long holdNanos) {
        int position = slot * SLOT;
        long count = slots.getLong(position);
        long fingerprints = slots.getLong(position + Long.BYTES);
        Work.hold(holdNanos);
        slots.putLong(position, count + 1);
        slots.putLong(position + Long.BYTES, fingerprints + fingerprint);
    }

    /** @return every counter added up */
    Total total() {
        long count = 0;
        long fingerprints = 0;
        for (int position = 0; position + SLOT <= slots.capacity(); position += SLOT) {
            count += slots.getLong(position);
            fingerprints += slots.getLong(position + Long.BYTES);
        }
        return new Total(count, fingerprints);
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param count increments held by all counters together
     * @param fingerprints the sum of their fingerprints (overflowing, as longs do)
     */
    record Total(long count, long fingerprints) {
    }
}
