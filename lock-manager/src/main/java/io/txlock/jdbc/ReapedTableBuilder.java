package io.txlock.jdbc;

import java.time.Duration;

/**
 * What the builders of the lock providers over a table set besides: how their reaper ({@link LockTableReaper})
 * deletes the rows whose lease ran out ({@link JdbcLockProvider.Builder}, {@code JpaLockProvider.Builder}).
 *
 * @param <B> the builder
 */
public abstract class ReapedTableBuilder<B extends ReapedTableBuilder<B>> extends LockTableBuilder<B> {

    private Duration reaperPeriod = LockTableReaper.DEFAULT_PERIOD;
    private int reaperBatch = LockTableReaper.DEFAULT_BATCH;

    /** For the builders of txlock's providers. */
    protected ReapedTableBuilder() {
    }

    /**
     * @param period how often the reaper deletes expired rows, from 1 ms to 365 days; {@link Duration#ZERO} turns
     *     it off (for example where another provider on the same table reaps already)
     * @return this builder
     */
    public final B reaperPeriod(Duration period) {
        this.reaperPeriod = LockTableReaper.validPeriod(period);
        return self();
    }

    /**
     * @param batch rows the reaper deletes per transaction; 500 by default
     * @return this builder
     */
    public final B reaperBatchSize(int batch) {
        this.reaperBatch = LockTableReaper.validBatch(batch);
        return self();
    }

    /** @return how often the reaper runs; zero for never */
    public final Duration reaperPeriod() {
        return reaperPeriod;
    }

    /** @return rows the reaper deletes per transaction */
    public final int reaperBatch() {
        return reaperBatch;
    }
}
