package io.txlock.bench;

import org.HdrHistogram.Histogram;

/**
 * Percentiles of one kind of latency, in microseconds, from an HdrHistogram (3 significant digits).
 *
 * @param count how many values
 * @param mean the mean
 * @param p50 the median
 * @param p90 the 90th percentile
 * @param p99 the 99th percentile
 * @param p999 the 99.9th percentile
 * @param max the largest value
 */
public record Latency(long count, double mean, double p50, double p90, double p99, double p999, double max) {

    /** Highest trackable value: 10 minutes, in nanoseconds. */
    private static final long HIGHEST = 600_000_000_000L;

    /** @return a histogram of nanoseconds that {@link #of(Histogram)} reads */
    public static Histogram histogram() {
        return new Histogram(1, HIGHEST, 3);
    }

    /**
     * @param h values in nanoseconds
     * @return the percentiles in microseconds
     */
    public static Latency of(Histogram h) {
        if (h.getTotalCount() == 0) {
            return none();
        }
        return new Latency(h.getTotalCount(), h.getMean() / 1000.0, micros(h, 50), micros(h, 90), micros(h, 99),
                micros(h, 99.9), h.getMaxValue() / 1000.0);
    }

    /**
     * Records a duration, clamped to the histogram's range.
     *
     * @param h the histogram
     * @param nanos the duration
     */
    public static void record(Histogram h, long nanos) {
        h.recordValue(Math.max(1, Math.min(HIGHEST, nanos)));
    }

    /** @return no values */
    public static Latency none() {
        return new Latency(0, 0, 0, 0, 0, 0, 0);
    }

    private static double micros(Histogram h, double percentile) {
        return h.getValueAtPercentile(percentile) / 1000.0;
    }
}
