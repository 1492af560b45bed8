package io.txlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.txlock.LockBackendException;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A lock held on a connection of the provider's own (SELECT_FOR_UPDATE in LEASE scope, ADVISORY), and a row lease's
 * statements in LEASE scope (OPTIMISTIC_VERSION, UNIQUE_INSERT, on connections in auto-commit mode), prepare their
 * statements once per pooled connection: the next borrower of the connection runs the same prepared statements
 * again, instead of having the driver (and H2, which caches no locking read) parse them anew at every acquire.
 */
class ReusedStatementsTest {

    static Stream<Arguments> ownConnectionStrategies() {
        List<Arguments> all = new ArrayList<>();
        for (JdbcSetup setup : JdbcSetup.values()) {
            for (Strategy strategy : List.of(Strategy.SELECT_FOR_UPDATE, Strategy.ADVISORY, Strategy.OPTIMISTIC_VERSION,
                    Strategy.UNIQUE_INSERT)) {
                if (setup.dialect.strategies().contains(strategy)) {
                    all.add(Arguments.of(setup, strategy));
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("ownConnectionStrategies")
    void aPooledConnectionKeepsTheStatementsOfItsLocks(JdbcSetup setup, Strategy strategy) throws SQLException {
        try (TestDatabase db = setup.database();
                HikariDataSource onePool = TestDatabase.pool(setup.mysqlDriver ? db.url().replace("jdbc:mariadb:", "jdbc:mysql:") : db.url(),
                        db.user(), 1);
                LockManager locks = LockManager.builder(JdbcLockProvider.builder(onePool).strategy(strategy).dialect(setup.dialect)
                        .reaperPeriod(Duration.ZERO).build()).build()) {
            LockOptions lease = LockOptions.defaults().withScope(LockScope.LEASE).withWait(Duration.ofSeconds(5));
            locks.acquire("reused", lease).release(); // creates the row
            locks.acquire("reused", lease).release();
            Map<String, PreparedStatement> kept = keptOn(onePool);
            assertThat(kept).as("statements kept on the pool's one connection").isNotEmpty();

            locks.acquire("reused", lease).release();
            locks.acquire("other", lease).release();
            locks.acquire("reused", lease).release();

            Map<String, PreparedStatement> keptAfter = keptOn(onePool);
            for (Map.Entry<String, PreparedStatement> e : kept.entrySet()) {
                assertThat(keptAfter.get(e.getKey())).as("the statement %s, run again by later borrowers", e.getKey())
                        .isSameAs(e.getValue());
                assertThat(e.getValue().isClosed()).as("%s closed", e.getKey()).isFalse();
            }
        }
    }

    /**
     * The connection holding kept statements dies (H2's ABORT_SESSION): an acquire on it fails, and once the pool
     * evicted it the next acquires prepare their statements on the new connection, and the dead one's are never run
     * again.
     */
    @Test
    void aBrokenConnectionsStatementsAreNeverRunAgain() throws SQLException {
        try (TestDatabase db = JdbcSetup.H2.database();
                HikariDataSource onePool = TestDatabase.pool(db.url(), db.user(), 1);
                LockManager locks = LockManager.builder(JdbcLockProvider.builder(onePool).strategy(Strategy.SELECT_FOR_UPDATE)
                        .dialect(JdbcDialect.H2).reaperPeriod(Duration.ZERO).build()).build()) {
            LockOptions lease = LockOptions.defaults().withScope(LockScope.LEASE).withWait(Duration.ofSeconds(5));
            locks.acquire("broken", lease).release();
            locks.acquire("broken", lease).release();
            Connection dead;
            Map<String, PreparedStatement> keptOnDead;
            long session;
            try (Connection c = onePool.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT SESSION_ID()")) {
                rs.next();
                session = rs.getLong(1);
                dead = c.unwrap(Connection.class);
                keptOnDead = ReusedStatements.of(c).kept();
            }
            assertThat(keptOnDead).isNotEmpty();
            try (Connection other = DriverManager.getConnection(db.url(), db.user(), ""); Statement s = other.createStatement()) {
                s.execute("CALL ABORT_SESSION(" + session + ")");
            }

            assertThatThrownBy(() -> locks.acquire("broken", lease)).as("an acquire on the dead connection")
                    .isInstanceOf(LockBackendException.class);
            onePool.getHikariPoolMXBean().softEvictConnections(); // H2's "database closed" is no SQLState HikariCP evicts for
            locks.acquire("broken", lease).release();
            locks.acquire("broken", lease).release();

            try (Connection c = onePool.getConnection()) {
                assertThat(c.unwrap(Connection.class)).as("the pool's connection now").isNotSameAs(dead);
                Map<String, PreparedStatement> kept = ReusedStatements.of(c).kept();
                assertThat(kept).as("statements kept on the new connection").isNotEmpty();
                for (Map.Entry<String, PreparedStatement> e : kept.entrySet()) {
                    assertThat(e.getValue()).as("%s", e.getKey()).isNotSameAs(keptOnDead.get(e.getKey()));
                    assertThat(e.getValue().isClosed()).as("%s closed", e.getKey()).isFalse();
                    assertThat(e.getValue().getConnection().unwrap(Connection.class)).as("%s prepared on", e.getKey())
                            .isSameAs(c.unwrap(Connection.class));
                }
            }
        }
    }

    /**
     * A kept statement cancelled while it blocks (an attempt's cancel, {@link CancellableStatements}) is never run
     * again: the next use prepares it anew, as a driver may keep a cancel's state on a statement.
     */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.EnumSource(value = JdbcSetup.class, names = {"POSTGRESQL", "MARIADB"})
    void aCancelledKeptStatementIsPreparedAnew(JdbcSetup setup) throws Exception {
        String sql = setup == JdbcSetup.POSTGRESQL ? "SELECT pg_advisory_lock(?)" : "SELECT GET_LOCK(?, 30)";
        String unlock = setup == JdbcSetup.POSTGRESQL ? "SELECT pg_advisory_unlock(?)" : "SELECT RELEASE_LOCK(?)";
        Object key = setup == JdbcSetup.POSTGRESQL ? (Object) 4242L : "txlock-cancelled-kept";
        try (TestDatabase db = setup.database();
                HikariDataSource onePool = TestDatabase.pool(db.url(), db.user(), 1);
                Connection holder = DriverManager.getConnection(db.url(), db.user(), "");
                Connection c = onePool.getConnection()) {
            SqlSession.of(holder).queryRow(sql, key);
            JdbcSession kept = JdbcSession.reusing(c);
            CancelledOnDemand cancellation = new CancelledOnDemand();
            SQLException[] failed = new SQLException[1];
            Thread blocked = new Thread(() -> {
                CancellableStatements scope = CancellableStatements.during(cancellation);
                try {
                    kept.queryRow(sql, key);
                } catch (SQLException e) {
                    failed[0] = e;
                } finally {
                    scope.close();
                }
            });
            blocked.start();
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
            while (db.lockWaiters() < 1) {
                assertThat(System.nanoTime()).as("waited 30 s for the statement to block").isLessThan(deadline);
                Thread.sleep(20);
            }
            cancellation.cancel();
            blocked.join(30_000);
            assertThat(blocked.isAlive()).as("the cancelled statement still blocked (MariaDB's GET_LOCK returns NULL, %s)",
                    failed[0]).isFalse();
            PreparedStatement cancelled = ReusedStatements.of(c).kept().get(sql);
            assertThat(cancelled).as("the statement kept when it was cancelled").isNotNull();

            SqlSession.of(holder).queryRow(unlock, key);
            assertThat(kept.queryRow(sql, key)).as("the lock taken after the cancel").isNotNull();
            assertThat(ReusedStatements.of(c).kept().get(sql)).as("the statement kept now").isNotSameAs(cancelled);
            assertThat(cancelled.isClosed()).as("the cancelled statement closed").isTrue();
            kept.queryRow(unlock, key);
        }
    }

    /** A cancellation that its test cancels. */
    private static final class CancelledOnDemand implements io.txlock.spi.Cancellation {
        private final List<Runnable> onCancel = new java.util.concurrent.CopyOnWriteArrayList<>();
        private volatile boolean cancelled;

        void cancel() {
            cancelled = true;
            onCancel.forEach(Runnable::run);
        }

        @Override
        public Registration onCancel(Runnable cancel) {
            onCancel.add(cancel);
            return () -> onCancel.remove(cancel);
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }
    }

    private static Map<String, PreparedStatement> keptOn(HikariDataSource pool) throws SQLException {
        try (Connection c = pool.getConnection()) {
            return ReusedStatements.of(c).kept();
        }
    }
}
