package io.txlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockNotHeldException;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.servers.PrivatePostgres;
import io.txlock.testkit.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A database restart (a crash, a failover, a killed backend) ends every row lock at once, while the holder learns
 * of it only at its next renewal: SELECT_FOR_UPDATE's window, measured here on a private PostgreSQL that the test
 * crashes under a holder. The holder must see the loss within a third of its lease (plus a connection check), its
 * late release must be refused, and the next holder's token must be higher.
 */
class PostgresRestartTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration SLACK = Duration.ofSeconds(5);

    @Test
    @Timeout(180)
    void aSelectForUpdateHolderLearnsOfADatabaseCrashWithinAThirdOfItsLease() throws Exception {
        try (PrivatePostgres server = PrivatePostgres.start(
                Path.of("target", "private-postgres", UUID.randomUUID().toString()));
                HikariDataSource pool = TestDatabase.pool(server.url(), "postgres", 8)) {
            JdbcLockSchema.create(pool, JdbcDialect.POSTGRESQL, "method_lock");
            try (LockManager holder = manager(pool); LockManager next = manager(pool)) {
                LockHandle held = holder.acquire("restart", LockOptions.defaults().withScope(LockScope.LEASE).withLease(LEASE));
                AtomicLong lostAt = new AtomicLong();
                CountDownLatch lost = new CountDownLatch(1);
                held.onLost(() -> {
                    lostAt.set(System.nanoTime());
                    lost.countDown();
                });
                long crashed = System.nanoTime();
                server.process().restart();
                long restarted = System.nanoTime();
                LockHandle taken = next.acquire("restart", LockOptions.defaults().withScope(LockScope.LEASE).withWait(Duration.ofSeconds(60)));
                long grantedAgain = System.nanoTime();
                assertThat(lost.await(LEASE.plus(SLACK).toMillis(), TimeUnit.MILLISECONDS))
                        .as("the holder learned its row lock ended with the crash").isTrue();
                assertThat(held.isValid()).as("the holder's handle after the crash").isFalse();
                assertThat(Duration.ofNanos(lostAt.get() - restarted)).as("time from the restart to the holder's loss")
                        .isLessThan(LEASE.dividedBy(3).plus(SLACK));
                assertThatThrownBy(held::release).as("the old holder's late release").isInstanceOf(LockNotHeldException.class);
                assertThat(taken.fencingToken()).as("the next holder's token after the crash").isGreaterThan(held.fencingToken());
                System.out.printf("PostgreSQL crash under a SELECT_FOR_UPDATE holder (lease %s): restart took %d ms; next holder granted"
                        + " %d ms after the restart; old holder learned of the loss %d ms after the restart (%d ms after the new grant)%n",
                        LEASE, ms(restarted - crashed), ms(grantedAgain - restarted), ms(lostAt.get() - restarted),
                        ms(lostAt.get() - grantedAgain));
                taken.release();
            }
        }
    }

    private static LockManager manager(HikariDataSource pool) {
        return LockManager.builder(JdbcLockProvider.builder(pool).strategy(Strategy.SELECT_FOR_UPDATE)
                .reaperPeriod(Duration.ZERO).build()).build();
    }

    private static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
