package io.txlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The row-lease grants draw their fencing token while they hold the row, whatever happened to the row while their
 * statement waited: a holder that came and went in the meantime, driven here by hand in a transaction of its own,
 * with a token drawn while the grant's statement waited for it, always carries a smaller token than the grant.
 * A token drawn by the waiting statement before it waited would be smaller.
 */
class RowLeaseFencingTest {

    private static final String NAME = "fenced";
    private static final LockOptions LEASE = LockOptions.defaults().withScope(LockScope.LEASE).withWait(Duration.ofSeconds(30));

    static List<Arguments> setups() {
        List<Arguments> all = new java.util.ArrayList<>();
        for (JdbcSetup setup : JdbcSetup.values()) {
            for (Strategy strategy : List.of(Strategy.OPTIMISTIC_VERSION, Strategy.UNIQUE_INSERT)) {
                all.add(Arguments.of(setup, strategy));
            }
        }
        return all;
    }

    /**
     * The compare-and-set waits for a transaction that holds the row, which draws a token and writes it while the
     * compare-and-set waits, then frees the row: the compare-and-set's token is drawn after that transaction ended.
     */
    @ParameterizedTest
    @MethodSource("setups")
    void aCompareAndSetThatWaitedForTheRowDrawsItsTokenAfterTheHolderEnded(JdbcSetup setup, Strategy strategy) throws Exception {
        try (TestDatabase db = setup.database(); HikariDataSource driverPool = setup.driverPool(db);
                LockManager locks = manager(db, driverPool, setup, strategy)) {
            Statements st = Statements.of(setup.dialect, "method_lock");
            try (Connection c = db.dataSource().getConnection()) {
                assertThat(st.createFreeRow(SqlSession.of(c), NAME, Duration.ofSeconds(5), false)).isTrue();
            }
            try (Connection holder = db.dataSource().getConnection()) {
                holder.setAutoCommit(false);
                Statements.update(holder, "UPDATE method_lock SET hold_count = hold_count + 1 WHERE name = ?", NAME);
                CompletableFuture<LockHandle> grant = CompletableFuture.supplyAsync(() -> locks.acquire(NAME, LEASE));
                awaitALockWaiter(db, grant);
                long holderToken = drawToken(holder, st);
                Statements.update(holder, "UPDATE method_lock SET version = ?, state = 'FREE' WHERE name = ?", holderToken, NAME);
                holder.commit();

                LockHandle granted = grant.get(30, TimeUnit.SECONDS);
                assertThat(granted.fencingToken()).as("the grant's token against the holder's, drawn while the grant waited")
                        .isGreaterThan(holderToken);
                granted.release();
            }
        }
    }

    /**
     * The interleaving of issue 14: the grant's insert draws a token, then waits for another transaction's insert of
     * the same name; that transaction, a whole TRANSACTION-scoped cycle, draws a greater token, holds the row with
     * it and deletes it (a UNIQUE_INSERT release), and commits; the insert then goes in with the smaller token, so
     * the grant must take a new one while it holds the row.
     */
    @ParameterizedTest
    @MethodSource("setups")
    void aGrantByInsertIsFencedAfterAHolderThatCameAndWentWhileItWaited(JdbcSetup setup, Strategy strategy) throws Exception {
        try (TestDatabase db = setup.database(); HikariDataSource driverPool = setup.driverPool(db);
                LockManager locks = manager(db, driverPool, setup, strategy)) {
            Statements st = Statements.of(setup.dialect, "method_lock");
            try (Connection holder = db.dataSource().getConnection()) {
                holder.setAutoCommit(false);
                Statements.update(holder, """
                        INSERT INTO method_lock (version, name, state, hold_count, expires_at, updated_at)
                        VALUES (0, ?, 'HELD', 1, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)""", NAME);
                CompletableFuture<LockHandle> grant = CompletableFuture.supplyAsync(() -> locks.acquire(NAME, LEASE));
                awaitALockWaiter(db, grant);
                long holderToken = drawToken(holder, st);
                Statements.update(holder, "UPDATE method_lock SET version = ? WHERE name = ?", holderToken, NAME);
                Statements.update(holder, "DELETE FROM method_lock WHERE name = ?", NAME);
                holder.commit();

                LockHandle granted = grant.get(30, TimeUnit.SECONDS);
                assertThat(granted.fencingToken()).as("the grant's token against the holder's, drawn while the grant waited")
                        .isGreaterThan(holderToken);
                granted.release();
            }
        }
    }

    private static LockManager manager(TestDatabase db, HikariDataSource driverPool, JdbcSetup setup, Strategy strategy) {
        return LockManager.builder(JdbcLockProvider.builder(JdbcSetup.providerDataSource(db, driverPool)).strategy(strategy)
                .dialect(setup.dialect).reaperPeriod(Duration.ZERO).build()).build();
    }

    /** A token drawn as the provider draws one: from the sequence, or MySQL's token table. */
    private static long drawToken(Connection c, Statements st) throws SQLException {
        if (st.tokenInsert() != null) {
            Statements.update(c, st.tokenInsert());
        }
        return Statements.queryLong(c, st.selectTokenAndNow()).getAsLong();
    }

    /** Polls the database until the grant's statement waits for the holder's row, or fails if the grant ended. */
    private static void awaitALockWaiter(TestDatabase db, CompletableFuture<LockHandle> grant) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (db.lockWaiters() == 0) {
            assertThat(grant).as("the grant, which must wait for the holder").isNotDone();
            assertThat(System.nanoTime() - deadline).as("waited 20 s for the grant to wait for the holder's row").isNegative();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }
}
