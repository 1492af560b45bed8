package io.txlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * How the JDBC provider bounds lock waits on H2 with the session's {@code LOCK_TIMEOUT}: H2 reads 0 as "the
 * default" (about two seconds), not as "do not wait", and the caller's own setting must be given back.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class H2LockTimeoutTest {

    private final TestDatabase db = TestDatabase.create(TestDatabase.Kind.H2).withLockTable("method_lock");

    @AfterAll
    void dropDatabase() {
        db.close();
    }

    @Test
    void aTryWithoutWaitAnswersAtOnceInsteadOfAfterH2sDefaultTimeout() {
        try (LockManager a = manager(JdbcLockProvider.builder(db.dataSource()));
                LockManager b = manager(JdbcLockProvider.builder(db.dataSource()));
                LockHandle held = a.acquire("zero", LockOptions.defaults().withScope(LockScope.LEASE))) {
            long start = System.nanoTime();
            for (int i = 0; i < 3; i++) {
                assertThat(b.tryAcquire("zero")).isEmpty();
            }
            // three waits of H2's default would take at least 6 s
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(4_000);
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void theCallersOwnLockTimeoutIsGivenBack() throws Exception {
        JdbcTransactions tx = JdbcTransactions.over(db.dataSource());
        try (LockManager locks = LockManager.builder(JdbcLockProvider.builder(tx).reaperPeriod(Duration.ZERO).build())
                .transactions(tx).build()) {
            long after = tx.inTransaction(c -> {
                try (Statement s = c.createStatement()) {
                    s.execute("SET LOCK_TIMEOUT 4321");
                    locks.acquire("restore");
                    try (ResultSet rs = s.executeQuery("SELECT LOCK_TIMEOUT()")) {
                        rs.next();
                        return rs.getLong(1);
                    }
                }
            });
            assertThat(after).isEqualTo(4321);
        }
    }

    private static LockManager manager(JdbcLockProvider.Builder builder) {
        return LockManager.builder(builder.strategy(Strategy.SELECT_FOR_UPDATE).reaperPeriod(Duration.ZERO).build()).build();
    }
}
