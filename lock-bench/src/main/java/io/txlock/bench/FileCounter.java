package io.txlock.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The shared counter of the counter scenario: a long in a file, read and written back plus one with no lock of
 * its own, so that every process of the host sees the same value and two writers at once lose an update.
 */
final class FileCounter implements AutoCloseable {

    private final FileChannel channel;
    private final ByteBuffer buffer = ByteBuffer.allocate(Long.BYTES);

    FileCounter(Path file) {
        try {
            this.channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.CREATE);
        } catch (IOException e) {
            throw new UncheckedIOException("could not open the counter file " + file, e);
        }
    }

    /**
     * Reads the value, waits {@code holdNanos}, writes the value plus one.
     *
     * @param holdNanos the pause between read and write
     */
    void increment(long holdNanos) {
        try {
            long value = read();
            Work.hold(holdNanos);
            buffer.clear();
            buffer.putLong(value + 1).flip();
            while (buffer.hasRemaining()) {
                channel.write(buffer, buffer.position());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the current value (0 for a new file) */
    long read() {
        try {
            buffer.clear();
            while (buffer.hasRemaining()) {
                if (channel.read(buffer, buffer.position()) < 0) {
                    return 0;
                }
            }
            return buffer.flip().getLong();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
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
}
