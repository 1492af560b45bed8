package io.txlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A SELECT_FOR_UPDATE lock in LEASE scope ends its transaction once per cycle: the release's one rollback (a
 * commit on H2) ends the row lock, and nothing rolls back again (MySQL Connector/J sends every rollback it is given).
 */
class SelectForUpdateRoundTripsTest {

    @Test
    void anUncontendedCycleEndsOneTransaction() {
        for (TestDatabase.Kind kind : TestDatabase.Kind.values()) {
            try (TestDatabase db = TestDatabase.create(kind).withLockTable("method_lock")) {
                RecordingDataSource recording = new RecordingDataSource(db.dataSource());
                try (LockManager locks = LockManager.builder(JdbcLockProvider.builder(recording).strategy(Strategy.SELECT_FOR_UPDATE)
                        .reaperPeriod(Duration.ZERO).build()).build()) {
                    LockOptions lease = LockOptions.defaults().withScope(LockScope.LEASE);
                    locks.acquire("cycle", lease).release(); // creates the row
                    int before = recording.transactionEnds();
                    LockHandle held = locks.acquire("cycle", lease);
                    held.release();
                    assertThat(recording.transactionEnds() - before).as("commits and rollbacks of one cycle on %s", kind).isEqualTo(1);
                }
            }
        }
    }
}
