package io.txlock.jdbc;

import io.txlock.LockInfo;
import io.txlock.spi.Attempt;
import io.txlock.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;

/** One of the three ways to lock with a table; see {@link io.txlock.Strategy}. */
interface LockStrategy {

    Attempt tryAcquire(LockRequest request);

    void renew(JdbcGrant grant, Duration lease);

    void release(JdbcGrant grant);

    void beforeCompletion(JdbcGrant grant);

    Optional<LockInfo> inspect(String name);

    /** Frees what the strategy holds of its own (connections of grants), as its provider closes. */
    default void close() {
    }
}
