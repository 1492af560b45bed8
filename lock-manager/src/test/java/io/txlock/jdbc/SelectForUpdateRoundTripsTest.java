package io.txlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A SELECT_FOR_UPDATE lock in LEASE scope ends its transaction once per cycle, on every dialect and driver: the
 * release's one rollback (a commit on H2) ends the row lock, and nothing rolls back again (MySQL Connector/J sends
 * every rollback it is given).
 */
class SelectForUpdateRoundTripsTest {

    @ParameterizedTest
    @EnumSource(JdbcSetup.class)
    void anUncontendedCycleEndsOneTransaction(JdbcSetup setup) {
        try (TestDatabase db = setup.database(); HikariDataSource driverPool = setup.driverPool(db)) {
            RecordingDataSource recording = new RecordingDataSource(JdbcSetup.providerDataSource(db, driverPool));
            try (LockManager locks = LockManager.builder(JdbcLockProvider.builder(recording).strategy(Strategy.SELECT_FOR_UPDATE)
                    .dialect(setup.dialect).reaperPeriod(Duration.ZERO).build()).build()) {
                LockOptions lease = LockOptions.defaults().withScope(LockScope.LEASE);
                locks.acquire("cycle", lease).release(); // creates the row
                int before = recording.transactionEnds();
                LockHandle held = locks.acquire("cycle", lease);
                held.release();
                assertThat(recording.transactionEnds() - before).as("commits and rollbacks of one cycle on %s", setup).isEqualTo(1);
            }
        }
    }
}
