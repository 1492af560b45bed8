package io.txlock.bench;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

/**
 * The progress indicator: on a terminal, one status line rewritten four times a second (phase, elapsed time,
 * operations); elsewhere, one line per phase.
 */
final class Progress implements AutoCloseable {

    private final PrintStream out;
    private final boolean live;
    private final LongAdder ops = new LongAdder();
    private final Thread ticker;
    private volatile String phase;
    private volatile long phaseStart;
    private volatile long phaseNanos;
    private volatile boolean closed;
    private int lastLength;

    /**
     * @param out where to print
     * @param live rewrite a status line (a terminal) instead of printing one line per phase
     */
    Progress(PrintStream out, boolean live) {
        this.out = out;
        this.live = live;
        this.ticker = new Thread(this::tick, "bench-progress");
        this.ticker.setDaemon(true);
        if (live) {
            ticker.start();
        }
    }

    /** @return a progress that prints nothing */
    static Progress silent() {
        return new Progress(new PrintStream(java.io.OutputStream.nullOutputStream()), false);
    }

    /**
     * Starts a phase.
     *
     * @param label what runs
     * @param expectedNanos how long it should take, or 0 if unknown
     */
    void phase(String label, long expectedNanos) {
        ops.reset();
        phase = label;
        phaseStart = System.nanoTime();
        phaseNanos = expectedNanos;
        if (!live) {
            out.println("  " + label + " …");
            out.flush();
        }
    }

    /** Counts one finished operation of the phase. */
    void op() {
        ops.increment();
    }

    /** @param n operations finished */
    void ops(long n) {
        ops.add(n);
    }

    /**
     * Prints a line above the status line.
     *
     * @param line the text
     */
    synchronized void note(String line) {
        clear();
        out.println(line);
        out.flush();
    }

    private void tick() {
        while (!closed) {
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                return;
            }
            render();
        }
    }

    private synchronized void render() {
        String label = phase;
        if (label == null || closed) {
            return;
        }
        double elapsed = (System.nanoTime() - phaseStart) / 1e9;
        String time = phaseNanos > 0 ? String.format(Locale.ROOT, "%.1f/%.1f s", elapsed, phaseNanos / 1e9)
                : String.format(Locale.ROOT, "%.1f s", elapsed);
        String text = String.format(Locale.ROOT, "  %s %s  %s  %,d ops", spinner(elapsed), label, time, ops.sum());
        int pad = Math.max(0, lastLength - text.length());
        out.print("\r" + text + " ".repeat(pad));
        out.flush();
        lastLength = text.length();
    }

    private static char spinner(double elapsed) {
        return "|/-\\".charAt((int) (elapsed * 4) % 4);
    }

    private void clear() {
        if (live && lastLength > 0) {
            out.print("\r" + " ".repeat(lastLength) + "\r");
            lastLength = 0;
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        ticker.interrupt();
        clear();
        out.flush();
    }
}
