package io.txlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txlock.LockBackendException;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * MariaDB error 1969 (max_statement_time exceeded) means "the lock wait ran out" only where the dialect bounded the
 * wait with max_statement_time itself. A try without waiting sets no such bound, so a 1969 there comes from the
 * server's own limit on a slow statement: a backend failure, never "held".
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbStatementTimeoutTest {

    private final TestDatabase db = TestDatabase.create(TestDatabase.Kind.MARIADB).withLockTable("method_lock");

    @AfterAll
    void dropDatabase() {
        db.close();
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void aStatementCutByTheServersLimitIsABackendFailureNotHeld(Strategy strategy) throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.url());
        config.setUsername(db.user());
        config.setMaximumPoolSize(4);
        config.setConnectionInitSql("SET SESSION max_statement_time = 0.5"); // a DBA's limit on every statement
        String name = "cut-" + strategy;
        try (HikariDataSource limited = new HikariDataSource(config);
                LockManager locks = LockManager.builder(JdbcLockProvider.builder(limited).strategy(strategy)
                        .reaperPeriod(Duration.ZERO).build()).build();
                Connection admin = DriverManager.getConnection(db.url(), db.user(), "");
                Statement s = admin.createStatement()) {
            s.execute("LOCK TABLES method_lock WRITE, method_lock_token_seq WRITE"); // every statement on them now stalls
            try {
                assertThatThrownBy(() -> locks.tryAcquire(name)).as("tryAcquire of a free name while its table stalls")
                        .isInstanceOf(LockBackendException.class).hasMessageContaining("code 1969");
            } finally {
                s.execute("UNLOCK TABLES");
            }
            assertThat(locks.tryAcquire(name)).as("'%s' once the table is back", name).hasValueSatisfying(LockHandle::release);
        }
    }
}
