package io.txlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txlock.LockBackendException;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockNotHeldException;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.spi.Grant;
import io.txlock.spi.GrantListener;
import io.txlock.spi.LockOwner;
import io.txlock.spi.LockRequest;
import io.txlock.testkit.TestDatabase;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * SELECT_FOR_UPDATE in LEASE scope keeps a pooled connection per held lock. When the locks hold every connection of
 * the pool, the next acquire fails within its own wait, naming the pool and the locks held, instead of waiting out the
 * pool's timeout (ten minutes here: the test's timeout fails it long before, as it did before the bound existed).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SelectForUpdatePoolTest {

    private static final LockOptions LEASE = LockOptions.defaults().withScope(LockScope.LEASE)
            .withLease(Duration.ofSeconds(30)).withWait(Duration.ofSeconds(1));

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void anAcquireOnAPoolExhaustedByLocksFailsWithinItsWaitNamingThePoolAndTheLocksHeld(TestDatabase.Kind kind) {
        try (TestDatabase db = TestDatabase.create(kind).withLockTable("method_lock");
                HikariDataSource pool = twoConnections(db);
                LockManager locks = LockManager.builder(JdbcLockProvider.builder(pool).strategy(Strategy.SELECT_FOR_UPDATE)
                        .reaperPeriod(Duration.ZERO).build()).defaults(LEASE).build()) {
            LockHandle first = locks.acquire("pool:1");
            LockHandle second = locks.acquire("pool:2");

            assertThatThrownBy(() -> locks.acquire("pool:3"))
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("no connection from HikariDataSource (two-of-" + kind + ")")
                    .hasMessageContaining("ms left of the lock's wait")
                    .hasMessageContaining("holds 2 SELECT_FOR_UPDATE locks in LEASE scope");
            assertThatThrownBy(() -> locks.tryAcquire("pool:3"))
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("holds 2 SELECT_FOR_UPDATE locks");

            first.release();
            try (LockHandle third = locks.acquire("pool:3", LEASE.withWait(Duration.ofSeconds(30)))) {
                assertThat(third.isValid()).as("granted on the connection the released lock gave back").isTrue();
            }
            second.release();
            assertThat(pool.getHikariPoolMXBean().getActiveConnections())
                    .as("connections still out: none was kept by a request the caller gave up").isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void aSecondReleaseOfAGrantFailsWithoutCountingItsConnectionAgain(TestDatabase.Kind kind) {
        try (TestDatabase db = TestDatabase.create(kind).withLockTable("method_lock");
                HikariDataSource pool = twoConnections(db);
                JdbcLockProvider provider = JdbcLockProvider.builder(pool).strategy(Strategy.SELECT_FOR_UPDATE)
                        .reaperPeriod(Duration.ZERO).build()) {
            Grant first = provider.tryAcquire(request("pool:1")).grant();
            provider.release(first);
            assertThatThrownBy(() -> provider.release(first)).isInstanceOf(LockNotHeldException.class)
                    .hasMessageContaining("already released");

            Grant second = provider.tryAcquire(request("pool:2")).grant();
            Grant third = provider.tryAcquire(request("pool:3")).grant();
            assertThatThrownBy(() -> provider.tryAcquire(request("pool:4")))
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("holds 2 SELECT_FOR_UPDATE locks in LEASE scope");
            provider.release(second);
            provider.release(third);
            assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isZero();
        }
    }

    private static LockRequest request(String name) {
        return new LockRequest(name, new LockOwner("test-host", "pool-test", "t1"), Duration.ofSeconds(30),
                Duration.ofSeconds(1), false, GrantListener.NONE);
    }

    private static HikariDataSource twoConnections(TestDatabase db) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.url());
        config.setUsername(db.user());
        config.setPassword("");
        config.setMaximumPoolSize(2);
        config.setConnectionTimeout(TimeUnit.MINUTES.toMillis(10));
        config.setPoolName("two-of-" + db.kind());
        return new HikariDataSource(config);
    }
}
