package io.txlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.LockBackendException;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Configuration mistakes are refused with a message that says what to fix: a lock table that does not exist (when
 * the provider is built, or at first use if the database could not be reached then), and bad builder input.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JdbcLockProviderBuilderTest {

    private final List<TestDatabase> databases = new ArrayList<>();

    @BeforeAll
    void startDatabases() {
        for (TestDatabase.Kind kind : TestDatabase.Kind.values()) {
            TestDatabase db = TestDatabase.create(kind).withLockTable("method_lock");
            db.execute("CREATE TABLE notes (id INTEGER NOT NULL PRIMARY KEY)");
            databases.add(db);
        }
    }

    @AfterAll
    void dropDatabases() {
        databases.forEach(TestDatabase::close);
    }

    Stream<TestDatabase> databases() {
        return databases.stream();
    }

    @ParameterizedTest(name = "{0}", autoCloseArguments = false)
    @MethodSource("databases")
    void aLockTableThatDoesNotExistIsRefusedWhenTheProviderIsBuilt(TestDatabase db) {
        for (Strategy strategy : Strategy.values()) {
            assertMissingTable(() -> JdbcLockProvider.builder(db.dataSource()).strategy(strategy).table("no_such_locks")
                    .reaperPeriod(Duration.ZERO).build(), db);
        }
        assertMissingTable(() -> JdbcLockProvider.builder(db.dataSource()).dialect(db.dialect()).table("no_such_locks").build(), db);
        JdbcTransactions tx = JdbcTransactions.over(db.dataSource());
        assertMissingTable(() -> JdbcLockProvider.builder(tx).table("no_such_locks").build(), db);
        try (JdbcLockProvider existing = JdbcLockProvider.builder(db.dataSource()).table("method_lock").reaperPeriod(Duration.ZERO).build()) {
            assertThat(existing.describe()).as("a provider on an existing table, once built").contains(db.dialect().name().toLowerCase());
        }
    }

    /**
     * Built while the database could not be reached, the provider checks the table at first use: here inside the
     * caller's transaction, which stays usable after the refusal (on PostgreSQL a failed statement would abort it).
     */
    @ParameterizedTest(name = "{0}", autoCloseArguments = false)
    @MethodSource("databases")
    void aLockTableThatDoesNotExistIsRefusedAtFirstUseIfTheDatabaseWasUnreachableWhenBuilt(TestDatabase db) throws Exception {
        SwitchedDataSource switched = new SwitchedDataSource(db.dataSource());
        JdbcTransactions tx = JdbcTransactions.over(switched);
        JdbcLockProvider provider = JdbcLockProvider.builder(tx).table("no_such_locks").reaperPeriod(Duration.ZERO).build();
        try (LockManager locks = LockManager.builder(provider).transactions(tx).build()) {
            assertThatThrownBy(() -> locks.tryAcquire("first", LockOptions.defaults().withScope(LockScope.LEASE)))
                    .as("first use while the database is unreachable").isInstanceOf(LockBackendException.class);
            switched.on = true;
            int id = 100 * db.kind().ordinal();
            tx.inTransaction(c -> {
                insertNote(c, id + 1);
                assertMissingTable(() -> locks.acquire("first"), db);
                insertNote(c, id + 2);
                return null;
            });
            assertThat(notes(db, id)).as("rows of the transaction in which the missing table was reported").isEqualTo(2);
            assertMissingTable(() -> locks.tryAcquire("second", LockOptions.defaults().withScope(LockScope.LEASE)), db);
        }
    }

    @Test
    void badBuilderInputIsRefusedWithAMessageNamingTheProblem() {
        TestDatabase db = databases.get(0);
        JdbcLockProvider.Builder builder = JdbcLockProvider.builder(db.dataSource());
        assertRefused(() -> JdbcLockProvider.builder((DataSource) null), "dataSource");
        assertRefused(() -> JdbcLockProvider.builder((JdbcTransactions) null), "transactions");
        assertRefused(() -> LockManager.builder(null), "provider");
        assertRefused(() -> builder.strategy(null), "strategy");
        assertRefused(() -> builder.dialect(null), "dialect");
        assertRefused(() -> builder.leaseDataSource(null), "leaseDataSource");
        for (Duration period : new Duration[] {null, Duration.ofMillis(-1), Duration.ofNanos(1), Duration.ofNanos(999_999),
                Duration.ofDays(366), Duration.ofSeconds(Long.MAX_VALUE)}) {
            assertRefused(() -> builder.reaperPeriod(period), "reaperPeriod", "1 ms");
        }
        for (int batch : new int[] {0, -1, 100_001}) {
            assertRefused(() -> builder.reaperBatchSize(batch), "reaperBatchSize");
        }
        try (JdbcLockProvider fastest = builder.reaperPeriod(Duration.ofMillis(1)).reaperBatchSize(1).build()) {
            assertThat(fastest.reapExpired()).as("a reaper of 1 ms and batches of 1 row, on an empty table").isZero();
        }
    }

    private static void assertMissingTable(Runnable call, TestDatabase db) {
        assertThatThrownBy(call::run).as("a lock table that does not exist in %s", db)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no_such_locks")
                .hasMessageContaining("does not exist")
                .hasMessageContaining("JdbcLockSchema.create")
                .hasMessageContaining(db.dialect().scriptLocation());
    }

    private static void assertRefused(Runnable call, String... mentions) {
        assertThatThrownBy(call::run).isInstanceOf(IllegalArgumentException.class)
                .satisfies(e -> assertThat(e.getMessage()).contains(mentions));
    }

    private static void insertNote(Connection c, int id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO notes (id) VALUES (?)")) {
            ps.setInt(1, id);
            ps.executeUpdate();
        }
    }

    private static int notes(TestDatabase db, int from) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM notes WHERE id > ? AND id < ?")) {
            ps.setInt(1, from);
            ps.setInt(2, from + 100);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    /** A real pool behind a switch: while off, it refuses connections as an unreachable database does. */
    private static final class SwitchedDataSource extends DelegatingDataSource {
        volatile boolean on;

        SwitchedDataSource(DataSource target) {
            super(target);
        }

        @Override
        public Connection getConnection() throws SQLException {
            if (!on) {
                throw new SQLException("Connection refused (the test's database is switched off)", "08001");
            }
            return target.getConnection();
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            return getConnection();
        }
    }
}
