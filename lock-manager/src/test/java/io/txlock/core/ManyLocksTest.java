package io.txlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.jdbc.JdbcLockProvider;
import io.txlock.testkit.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/design.md's memory target: one JVM holds 100,000 distinct locks at once, with local bookkeeping of one entry
 * per held name and none left once they are released. On embedded H2 (a real database, the fastest here), with
 * UNIQUE_INSERT, whose LEASE grants hold no connection.
 */
class ManyLocksTest {

    private static final int LOCKS = 100_000;

    @Test
    void aHundredThousandLocksHeldAtOnceLeaveNoBookkeepingBehind() {
        try (HikariDataSource ds = TestDatabase.inMemoryH2("many", 2)) {
            LockOptions lease = LockOptions.defaults().withScope(LockScope.LEASE).withLease(Duration.ofMinutes(10));
            try (LockManager locks = LockManager.builder(JdbcLockProvider.builder(ds).strategy(Strategy.UNIQUE_INSERT)
                    .reaperPeriod(Duration.ZERO).build()).build()) {
                CoreLockManager core = (CoreLockManager) locks;
                List<LockHandle> held = new ArrayList<>(LOCKS);
                for (int i = 0; i < LOCKS; i++) {
                    held.add(locks.acquire("many:" + i, lease));
                }

                assertThat(core.trackedNames()).isEqualTo(LOCKS);
                assertThat(core.pendingLeaseTimers()).isEqualTo(LOCKS);
                assertThat(held).allMatch(LockHandle::isValid);

                held.forEach(LockHandle::release);
                held.clear();

                assertThat(core.trackedNames()).as("names tracked after every lock was released").isZero();
                assertThat(core.pendingLeaseTimers()).as("lease timers left after every lock was released").isZero();
                assertThat(locks.inspect("many:0")).isEmpty();
            }
        }
    }
}
