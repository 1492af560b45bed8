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

    private static Map<String, PreparedStatement> keptOn(HikariDataSource pool) throws SQLException {
        try (Connection c = pool.getConnection()) {
            return ReusedStatements.of(c).kept();
        }
    }
}
