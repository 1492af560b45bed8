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
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An uncontended LEASE cycle of OPTIMISTIC_VERSION and UNIQUE_INSERT sends the fewest statements that keep its fencing
 * token drawn while the row is held (issue 14 point 2), counted on the provider's connections, which are in
 * auto-commit mode as a pool hands them out (so no commit follows). OPTIMISTIC_VERSION's row exists after its first
 * use: one compare-and-set; UNIQUE_INSERT inserts the row on every acquire (its release deletes it): the insert and
 * its retoken, in one round trip on PostgreSQL (one call of two statements) and MariaDB (one compound statement). MySQL draws tokens from a table, before the statement that uses them,
 * so it keeps the retoken after its compare-and-set. H2 and MySQL also bound the attempt's lock waits by a session
 * setting, which costs three statements. Every release is one statement.
 */
class RowLeaseRoundTripsTest {

    @ParameterizedTest
    @EnumSource(JdbcSetup.class)
    void anUncontendedCycleSendsItsFewestStatements(JdbcSetup setup) {
        try (TestDatabase db = setup.database(); HikariDataSource driverPool = setup.driverPool(db)) {
            for (Strategy strategy : List.of(Strategy.OPTIMISTIC_VERSION, Strategy.UNIQUE_INSERT)) {
                RecordingDataSource recording = new RecordingDataSource(JdbcSetup.providerDataSource(db, driverPool));
                try (LockManager locks = LockManager.builder(JdbcLockProvider.builder(recording).strategy(strategy)
                        .dialect(setup.dialect).reaperPeriod(Duration.ZERO).build()).build()) {
                    LockOptions lease = LockOptions.defaults().withScope(LockScope.LEASE);
                    String name = "cycle-" + strategy;
                    locks.acquire(name, lease).release();

                    int start = recording.databaseCalls().size();
                    LockHandle held = locks.acquire(name, lease);
                    int acquired = recording.databaseCalls().size();
                    held.release();
                    List<String> calls = recording.databaseCalls();

                    assertThat(calls.subList(start, acquired)).as("statements of an uncontended %s acquire on %s", strategy, setup)
                            .hasSize(acquireStatements(setup, strategy));
                    assertThat(calls.subList(acquired, calls.size())).as("statements of a %s release on %s", strategy, setup)
                            .hasSize(1);
                }
            }
        }
    }

    /**
     * MariaDB refuses a compound statement as a server-side prepared statement (1295): through either driver set to
     * prepare on the server, a grant by insert is still one statement (the driver sends it as text) and takes the lock
     * with a token greater than the last.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"jdbc:mariadb:", "jdbc:mysql:"})
    void aMariaDbDriverThatPreparesOnTheServerGrantsByInsert(String driver) {
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.MARIADB).withLockTable("method_lock");
                HikariDataSource pool = TestDatabase.pool(db.url().replace("jdbc:mariadb:", driver)
                        + (db.url().contains("?") ? "&" : "?") + "useServerPrepStmts=true", db.user(), 2)) {
            RecordingDataSource recording = new RecordingDataSource(pool);
            try (LockManager locks = LockManager.builder(JdbcLockProvider.builder(recording).strategy(Strategy.UNIQUE_INSERT)
                    .dialect(JdbcDialect.MARIADB).reaperPeriod(Duration.ZERO).build()).build()) {
                LockOptions lease = LockOptions.defaults().withScope(LockScope.LEASE);
                long last = 0;
                for (int i = 0; i < 3; i++) {
                    int start = recording.databaseCalls().size();
                    try (LockHandle held = locks.acquire("server-prepared", lease)) {
                        assertThat(recording.databaseCalls().size() - start).as("statements of acquire %d through %s", i, driver)
                                .isEqualTo(1);
                        assertThat(held.fencingToken()).as("token of grant %d through %s", i, driver).isGreaterThan(last);
                        last = held.fencingToken();
                    }
                }
            }
        }
    }

    private static int acquireStatements(JdbcSetup setup, Strategy strategy) {
        int lock;
        if (setup.dialect == JdbcDialect.MYSQL) {
            lock = 4; // a token row, the compare-and-set (or insert), a token row, the retoken
        } else if (strategy == Strategy.OPTIMISTIC_VERSION || setup.dialect != JdbcDialect.H2) {
            lock = 1;
        } else {
            lock = 2; // the insert, then its retoken
        }
        // H2 and MySQL bound lock waits by a session setting: read, set for the attempt, set back
        return setup.dialect == JdbcDialect.H2 || setup.dialect == JdbcDialect.MYSQL ? lock + 3 : lock;
    }
}
