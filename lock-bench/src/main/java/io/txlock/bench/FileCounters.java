package io.txlock.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The shared counters of a lock scenario, one per lock name, in a file: each read and written back plus one with
 * no lock of their own, so that every process of the host sees the same values and two holders of a name inside
 * at once lose an update. Beside its count, a counter adds up the {@linkplain #fingerprint(int, long) fingerprints}
 * of its increments, so that {@link LostUpdates} can tell which increments it holds.
 */
final class FileCounters implements AutoCloseable {

    /** A counter: its count, then the sum of its increments' fingerprints. */
    private static final int SLOT = 2 * Long.BYTES;

    private final FileChannel channel;
    private final ByteBuffer buffer = ByteBuffer.allocate(SLOT);

    FileCounters(Path file) {
        try {
            this.channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.CREATE);
        } catch (IOException e) {
            throw new UncheckedIOException("could not open the counters file " + file, e);
        }
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
        try {
            long position = (long) slot * SLOT;
            read(position);
            long count = buffer.getLong(0);
            long fingerprints = buffer.getLong(Long.BYTES);
            Work.hold(holdNanos);
            buffer.clear();
            buffer.putLong(count + 1).putLong(fingerprints + fingerprint).flip();
            while (buffer.hasRemaining()) {
                channel.write(buffer, position + buffer.position());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return every counter added up */
    Total total() {
        try {
            long count = 0;
            long fingerprints = 0;
            for (long position = 0; position < channel.size(); position += SLOT) {
                read(position);
                count += buffer.getLong(0);
                fingerprints += buffer.getLong(Long.BYTES);
            }
            return new Total(count, fingerprints);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads the slot at {@code position} into the buffer; zeros past the end of the file. */
    private void read(long position) throws IOException {
        buffer.clear();
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, position + buffer.position()) < 0) {
                while (buffer.hasRemaining()) {
                    buffer.put((byte) 0);
                }
            }
        }
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
