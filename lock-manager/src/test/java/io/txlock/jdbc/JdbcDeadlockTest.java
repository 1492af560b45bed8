package io.txlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.LockBackendException;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockTimeoutException;
import io.txlock.Strategy;
import io.txlock.spi.GrantListener;
import io.txlock.spi.LockOwner;
import io.txlock.spi.LockRequest;
import io.txlock.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A real deadlock between two transactions that lock two names in opposite order (TRANSACTION scope), on every
 * server and strategy. The database breaks it; the lock attempt it hit reports what happened, never as a raw SQL
 * error: on PostgreSQL the attempt runs in a savepoint, so the deadlock only undoes it and counts as "not granted"
 * (the caller may wait on, or time out, its transaction still usable); MariaDB and H2 roll back the whole victim
 * transaction, reported as a {@link LockBackendException} that says to retry the whole transaction. ADVISORY on
 * MariaDB holds each GET_LOCK on a session of its own, so no session waits for a lock while holding another and the
 * database sees no deadlock: the first waiter's wait runs out, its transaction still usable, as on PostgreSQL.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JdbcDeadlockTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    /** Where the first transaction waits out (PostgreSQL, whose deadlock detector runs after 1 s of waiting; MariaDB
     * session locks), it gives up this soon. */
    private static final Duration FIRST_WAIT_ON_POSTGRESQL = Duration.ofSeconds(4);
    private static final ExecutorService THREADS = Executors.newCachedThreadPool();

    private final List<TestDatabase> databases = new ArrayList<>();

    @BeforeAll
    void startDatabases() {
        for (TestDatabase.Kind kind : TestDatabase.Kind.values()) {
            TestDatabase db = TestDatabase.create(kind).withLockTable("method_lock");
            db.execute("CREATE TABLE notes (note VARCHAR(64) NOT NULL PRIMARY KEY)");
            databases.add(db);
        }
    }

    @AfterAll
    void dropDatabases() {
        THREADS.shutdownNow();
        databases.forEach(TestDatabase::close);
    }

    Stream<Arguments> combinations() {
        return databases.stream().flatMap(db -> db.dialect().strategies().stream().map(s -> Arguments.of(db, s)));
    }

    /** How one transaction's second lock ended: granted, timed out (then committed), or failed (then rolled back). */
    private record Outcome(String who, boolean granted, RuntimeException failure) {
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void aDeadlockOverTwoLocksIsReportedAsNotGrantedOrAsRetryTheWholeTransaction(TestDatabase db, Strategy strategy)
            throws Exception {
        JdbcTransactions txA = JdbcTransactions.over(db.dataSource());
        JdbcTransactions txB = JdbcTransactions.over(db.dataSource());
        String x = "x-" + strategy;
        String y = "y-" + strategy;
        leftByAnExpiredHolder(db, x, y);
        long deadlocksBefore = postgresDeadlocks(db);
        boolean postgres = db.kind() == TestDatabase.Kind.POSTGRESQL;
        boolean waitsOut = postgres || strategy == Strategy.ADVISORY;
        try (LockManager a = manager(txA, strategy); LockManager b = manager(txB, strategy)) {
            CountDownLatch aHasX = new CountDownLatch(1);
            CountDownLatch bHasY = new CountDownLatch(1);
            CountDownLatch bMayTakeX = new CountDownLatch(1);
            CompletableFuture<Outcome> first = inTransaction(txA, "A-" + strategy, c -> {
                a.acquire(x);
                aHasX.countDown();
                await(bHasY);
                return a.acquire(y, LockOptions.defaults().withWait(waitsOut ? FIRST_WAIT_ON_POSTGRESQL : PATIENCE));
            });
            CompletableFuture<Outcome> second = inTransaction(txB, "B-" + strategy, c -> {
                await(aHasX);
                b.acquire(y);
                bHasY.countDown();
                await(bMayTakeX);
                return b.acquire(x, LockOptions.defaults().withWait(PATIENCE));
            });
            Awaitility.await("A waits in the database for y, held by B").atMost(PATIENCE).pollInterval(Duration.ofMillis(20))
                    .until(() -> db.lockWaiters() >= 1 || first.isDone());
            assertThat(first).as("A, waiting for y").isNotDone();
            bMayTakeX.countDown();
            Outcome outcomeA = first.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            Outcome outcomeB = second.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);

            if (waitsOut) {
                assertThat(outcomeA.failure()).as("A's wait for y, broken by deadlocks (or waited out) until A gave up")
                        .isInstanceOf(LockTimeoutException.class);
                assertThat(notes(db, outcomeA.who())).as("A's notes: its transaction stayed usable and committed").isEqualTo(2);
                assertThat(outcomeB.granted()).as("B, once A committed").isTrue();
                assertThat(notes(db, outcomeB.who())).as("B's notes").isEqualTo(2);
                if (postgres) {
                    Awaitility.await("PostgreSQL counted the deadlock").atMost(PATIENCE)
                            .until(() -> postgresDeadlocks(db) > deadlocksBefore);
                }
            } else {
                Outcome victim = outcomeA.granted() ? outcomeB : outcomeA;
                Outcome survivor = victim == outcomeA ? outcomeB : outcomeA;
                assertThat(victim.failure()).as("the deadlock victim %s", victim.who())
                        .isInstanceOf(LockBackendException.class)
                        .hasMessageContaining("deadlock victim")
                        .hasMessageContaining("retry the whole transaction")
                        .hasRootCauseInstanceOf(SQLException.class);
                SQLException cause = (SQLException) victim.failure().getCause();
                assertThat(cause.getErrorCode()).as("the database's error").isEqualTo(db.kind() == TestDatabase.Kind.H2 ? 40001 : 1213);
                assertThat(notes(db, victim.who())).as("notes of the rolled back victim %s", victim.who()).isZero();
                assertThat(survivor.granted()).as("%s, once the victim was rolled back", survivor.who()).isTrue();
                assertThat(notes(db, survivor.who())).as("notes of %s", survivor.who()).isEqualTo(2);
            }
        }
    }

    /**
     * Gives each name a row whose holder's lease ran out, as names in use have: H2 detects a deadlock between waits
     * for existing rows, while a wait for a row another transaction is inserting only ends with its timeout.
     */
    private static void leftByAnExpiredHolder(TestDatabase db, String... names) {
        try (JdbcLockProvider provider = JdbcLockProvider.builder(db.dataSource()).strategy(Strategy.OPTIMISTIC_VERSION)
                .reaperPeriod(Duration.ZERO).build()) {
            for (String name : names) {
                assertThat(provider.tryAcquire(new LockRequest(name, new LockOwner("test-host", "gone", "t1"), Duration.ofMillis(1),
                        Duration.ZERO, false, GrantListener.NONE)).isGranted()).as("'%s' granted", name).isTrue();
            }
            Awaitility.await("leases of 1 ms ran out").atMost(PATIENCE).pollInterval(Duration.ofMillis(20))
                    .until(() -> Stream.of(names).allMatch(n -> provider.inspect(n).isEmpty()));
        }
    }

    private static LockManager manager(JdbcTransactions tx, Strategy strategy) {
        return LockManager.builder(JdbcLockProvider.builder(tx).strategy(strategy).reaperPeriod(Duration.ZERO).build())
                .transactions(tx).build();
    }

    /** A lock step of a transaction. */
    @FunctionalInterface
    private interface Step {
        Object run(Connection c) throws Exception;
    }

    /**
     * Runs {@code step} in a transaction between two notes, as an application would: a lock not granted in time is
     * handled and the transaction commits; any other failure rolls it back.
     */
    private CompletableFuture<Outcome> inTransaction(JdbcTransactions tx, String who, Step step) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return tx.inTransaction(c -> {
                    note(c, who + "-before");
                    Outcome outcome;
                    try {
                        step.run(c);
                        outcome = new Outcome(who, true, null);
                    } catch (LockTimeoutException e) {
                        outcome = new Outcome(who, false, e);
                    }
                    note(c, who + "-after");
                    return outcome;
                });
            } catch (LockBackendException e) {
                return new Outcome(who, false, e);
            } catch (Exception e) {
                throw new IllegalStateException(who + " failed otherwise than documented", e);
            }
        }, THREADS);
    }

    private static void await(CountDownLatch latch) throws InterruptedException {
        assertThat(latch.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
    }

    private static void note(Connection c, String note) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO notes (note) VALUES (?)")) {
            ps.setString(1, note);
            ps.executeUpdate();
        }
    }

    private static int notes(TestDatabase db, String who) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM notes WHERE note LIKE ?")) {
            ps.setString(1, who + "-%");
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    /** @return deadlocks PostgreSQL has detected in this database so far; 0 elsewhere */
    private static long postgresDeadlocks(TestDatabase db) throws SQLException {
        if (db.kind() != TestDatabase.Kind.POSTGRESQL) {
            return 0;
        }
        try (Connection c = db.dataSource().getConnection();
                ResultSet rs = c.createStatement().executeQuery(
                        "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
