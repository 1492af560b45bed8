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
import io.txlock.spi.Attempt;
import io.txlock.spi.GrantListener;
import io.txlock.spi.LockOwner;
import io.txlock.spi.LockRequest;
import io.txlock.testkit.CountingProvider;
import io.txlock.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TimeZone;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What is particular to the JDBC provider, on every server and strategy: SQL-level ownership, expiry, the reaper, tables. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JdbcLockProviderTest {

    private final List<TestDatabase> databases = new ArrayList<>();

    @BeforeAll
    void startDatabases() {
        for (TestDatabase.Kind kind : TestDatabase.Kind.values()) {
            databases.add(TestDatabase.create(kind).withLockTable("method_lock"));
        }
    }

    @AfterAll
    void dropDatabases() {
        databases.forEach(TestDatabase::close);
    }

    Stream<TestDatabase> servers() {
        return databases.stream();
    }

    Stream<Arguments> combinations() {
        return databases.stream().flatMap(db -> db.dialect().strategies().stream().map(s -> Arguments.of(db, s)));
    }

    /** The row strategies with a lease in the database: not SELECT_FOR_UPDATE's row lock, not an ADVISORY lock. */
    Stream<Arguments> leasedCombinations() {
        return combinations().filter(a -> !waitsInTheDatabase((Strategy) a.get()[1]));
    }

    /** The strategies whose waiters block in the database rather than answer "held" at once. */
    Stream<Arguments> blockingCombinations() {
        return combinations().filter(a -> waitsInTheDatabase((Strategy) a.get()[1]));
    }

    private static boolean waitsInTheDatabase(Strategy strategy) {
        return strategy == Strategy.SELECT_FOR_UPDATE || strategy == Strategy.ADVISORY;
    }

    private static JdbcLockProvider provider(TestDatabase db, Strategy strategy) {
        return JdbcLockProvider.builder(db.dataSource()).strategy(strategy).reaperPeriod(Duration.ZERO).build();
    }

    private static LockRequest request(String name, String owner, Duration lease, Duration maxBlock) {
        return new LockRequest(name, new LockOwner("test-host", owner, "t1"), lease, maxBlock, false, GrantListener.NONE);
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void grantsAndReleasesWithIncreasingTokens(TestDatabase db, Strategy strategy) {
        try (LockManager a = LockManager.builder(provider(db, strategy)).build();
                LockManager b = LockManager.builder(provider(db, strategy)).build()) {
            String name = "basic-" + strategy;
            long previous = 0;
            for (int i = 0; i < 3; i++) {
                LockManager holder = i % 2 == 0 ? a : b;
                LockManager other = i % 2 == 0 ? b : a;
                try (LockHandle h = holder.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE))) {
                    assertThat(h.fencingToken()).isGreaterThan(previous);
                    previous = h.fencingToken();
                    assertThat(other.tryAcquire(name)).isEmpty();
                    assertThat(other.inspect(name)).hasValueSatisfying(info -> assertThat(info.name()).isEqualTo(name));
                }
            }
            assertThat(b.inspect(name)).isEmpty();
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void aWaiterIsGrantedWhenTheHolderReleases(TestDatabase db, Strategy strategy) throws Exception {
        CountingProvider counting = new CountingProvider(provider(db, strategy));
        try (LockManager a = LockManager.builder(provider(db, strategy)).build();
                LockManager b = LockManager.builder(counting).build()) {
            LockHandle held = a.acquire("handoff");
            CompletableFuture<LockHandle> waiter = b.acquireAsync("handoff",
                    LockOptions.defaults().withWait(Duration.ofSeconds(20))).toCompletableFuture();
            // SELECT_FOR_UPDATE and ADVISORY wait in the database (aWaiterBlocksInTheDatabaseWithoutPolling shows they
            // do not poll); the row strategies wait in their attempt on PostgreSQL and MariaDB (FairQueue, whose head
            // need not show as a lock wait; FairQueueTest), elsewhere they answer "held" at once and wait in the core
            Awaitility.await("the waiter waits").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
                    .until(() -> waitsInTheDatabase(strategy) ? db.lockWaiters() > 0
                            : counting.mostInFlight("handoff") > 0 || !counting.attempts("handoff").isEmpty());
            assertThat(waiter).as("a waiter whose attempt found the lock held").isNotDone();
            long token = held.fencingToken();
            held.release();
            LockHandle next = waiter.get(20, TimeUnit.SECONDS);
            assertThat(next.fencingToken()).isGreaterThan(token);
            next.release();
        }
    }

    /**
     * SELECT_FOR_UPDATE and ADVISORY in LEASE scope wait in the database, not by polling: while the holder keeps the
     * lock, the database shows the waiter's session waiting for the row lock or advisory lock, and the waiter's one
     * attempt stays blocked in it. A poller (1–50 ms backoff) would show no lock wait and would have made many
     * attempts in that time.
     */
    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("blockingCombinations")
    void aWaiterBlocksInTheDatabaseWithoutPolling(TestDatabase db, Strategy strategy) throws Exception {
        String name = "blocked-waiter-" + strategy;
        LockOptions lease = LockOptions.defaults().withScope(LockScope.LEASE).withWait(Duration.ofSeconds(30));
        CountingProvider counting = new CountingProvider(provider(db, strategy));
        try (LockManager a = LockManager.builder(provider(db, strategy)).build();
                LockManager b = LockManager.builder(counting).build()) {
            LockHandle held = a.acquire(name, lease);
            CompletableFuture<LockHandle> waiter = b.acquireAsync(name, lease).toCompletableFuture();
            Awaitility.await("the database shows the waiter waiting for the lock").atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(20)).until(db::lockWaiters, n -> n > 0);
            // it stays blocked in the database: one attempt in flight, none that answered "held" and was retried
            Awaitility.await("the waiter stays blocked in the database, without new attempts")
                    .during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                    .until(() -> !waiter.isDone() && counting.attempts(name).isEmpty() && db.lockWaiters() > 0);
            assertThat(counting.mostInFlight(name)).as("attempts of '%s' running at once", name).isEqualTo(1);

            long token = held.fencingToken();
            held.release();
            LockHandle next = waiter.get(20, TimeUnit.SECONDS);
            assertThat(next.fencingToken()).isGreaterThan(token);
            List<CountingProvider.Call> attempts = counting.attempts(name);
            assertThat(attempts).as("the waiter's attempts over the whole wait").hasSizeBetween(1, 2);
            assertThat(attempts.get(attempts.size() - 1).granted()).as("its last attempt").isTrue();
            next.release();
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void aTimedWaitEndsWithinItsBound(TestDatabase db, Strategy strategy) {
        try (LockManager a = LockManager.builder(provider(db, strategy)).build();
                LockManager b = LockManager.builder(provider(db, strategy)).build();
                LockHandle held = a.acquire("bounded")) {
            long start = System.nanoTime();
            assertThat(b.tryAcquire("bounded", Duration.ofMillis(400))).isEmpty();
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(millis).isBetween(390L, 400L + 3_000L);
            assertThat(held.isValid()).isTrue();
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("leasedCombinations")
    void aStaleGrantCannotRenewOrReleaseTheNextHoldersLock(TestDatabase db, Strategy strategy) {
        try (JdbcLockProvider provider = provider(db, strategy)) {
            Attempt stale = provider.tryAcquire(request("stale", "owner-a", Duration.ofMillis(200), Duration.ZERO));
            assertThat(stale.isGranted()).isTrue();
            Attempt next = awaitGrant(provider, request("stale", "owner-b", Duration.ofSeconds(30), Duration.ZERO));
            assertThat(next.grant().fencingToken()).isGreaterThan(stale.grant().fencingToken());

            assertThatThrownBy(() -> provider.renew(stale.grant(), Duration.ofSeconds(30))).isInstanceOf(LockNotHeldException.class);
            assertThatThrownBy(() -> provider.release(stale.grant())).isInstanceOf(LockNotHeldException.class);
            assertThat(provider.inspect("stale")).hasValueSatisfying(info -> {
                assertThat(info.ownerId()).isEqualTo("owner-b/t1");
                assertThat(info.fencingToken()).isEqualTo(next.grant().fencingToken());
            });
            provider.release(next.grant());
            assertThat(provider.inspect("stale")).isEmpty();
        }
    }

    /**
     * A lease ends {@code lease} after the database's own clock, whatever the client's clock or time zone: the
     * provider binds no client time (a far time zone would shift a local timestamp bound into a DATETIME column by
     * hours), and {@code expires_at} is the lease ahead of the database's {@code now}.
     */
    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("leasedCombinations")
    void leasesAreComputedWithTheDatabaseClock(TestDatabase db, Strategy strategy) throws SQLException {
        TimeZone zone = TimeZone.getDefault();
        for (String far : List.of("Pacific/Kiritimati", "Etc/GMT+12")) {
            TimeZone.setDefault(TimeZone.getTimeZone(far));
            try (HikariDataSource pool = TestDatabase.pool(db.url(), db.user(), 2)) {
                RecordingDataSource recording = new RecordingDataSource(pool);
                try (JdbcLockProvider provider = JdbcLockProvider.builder(recording).strategy(strategy).reaperPeriod(Duration.ZERO).build()) {
                    String name = "clock-" + strategy + "-" + far;
                    Attempt a = provider.tryAcquire(request(name, "owner-a", Duration.ofSeconds(90), Duration.ZERO));
                    assertThat(leaseLeft(db, name)).as("lease left after a grant of 90 s, client in %s", far)
                            .isBetween(Duration.ofSeconds(80), Duration.ofSeconds(91));
                    provider.renew(a.grant(), Duration.ofMinutes(30));
                    assertThat(leaseLeft(db, name)).as("lease left after a renewal to 30 min, client in %s", far)
                            .isBetween(Duration.ofMinutes(30).minusSeconds(10), Duration.ofMinutes(30).plusSeconds(1));
                    provider.release(a.grant());
                }
                assertNoClientTime(recording.parameters());
            } finally {
                TimeZone.setDefault(zone);
            }
        }
    }

    /** @return how long the row's lease still runs by the database's clock, both read in one statement */
    private static Duration leaseLeft(TestDatabase db, String name) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Statements.of(db.dialect(), "method_lock").selectState())) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as("the row of '%s'", name).isTrue();
                return Duration.ofMillis(rs.getLong(3));
            }
        }
    }

    /** Fails if a value looks like a time of the client: a date or time object, an epoch count of about now, a date string. */
    private static void assertNoClientTime(List<Object> parameters) {
        long millis = System.currentTimeMillis();
        long week = Duration.ofDays(7).toMillis();
        for (Object p : parameters) {
            assertThat(p).as("a bound parameter").isNotInstanceOfAny(java.util.Date.class, java.util.Calendar.class,
                    java.time.temporal.TemporalAccessor.class);
            if (p instanceof Number n) {
                long v = n.longValue();
                assertThat(Math.abs(v - millis) < week || Math.abs(v - millis / 1000) < week / 1000
                        || Math.abs(v / 1000 - millis) < week).as("%d bound: an epoch time of about now", v).isFalse();
            }
            if (p instanceof String s) {
                assertThat(s).as("a bound string").doesNotContainPattern("\\d{4}-\\d{2}-\\d{2}");
            }
        }
        assertThat(parameters).as("parameters bound by acquire, renew and release").isNotEmpty();
    }

    @Test
    void tableNamesAreValidatedIdentifiers() {
        TestDatabase db = databases.get(0);
        for (String bad : new String[] {"", "1table", "method_lock; DROP TABLE x", "a.b", "lock-table", "x".repeat(49), null}) {
            assertThatThrownBy(() -> JdbcLockProvider.builder(db.dataSource()).table(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("plain SQL identifier");
        }
    }

    @Test
    void aSecondManagerOnACustomTableIsIndependent() {
        TestDatabase db = databases.get(1);
        db.withLockTable("custom_locks");
        try (LockManager custom = LockManager.builder(JdbcLockProvider.builder(db.dataSource()).table("custom_locks").build()).build();
                LockManager standard = LockManager.builder(JdbcLockProvider.builder(db.dataSource()).build()).build();
                LockHandle a = custom.acquire("same-name");
                LockHandle b = standard.acquire("same-name")) {
            assertThat(a.isValid()).isTrue();
            assertThat(b.isValid()).isTrue();
        }
        assertThat(rows(db, "custom_locks")).isLessThanOrEqualTo(1);
    }

    private static Attempt awaitGrant(JdbcLockProvider provider, LockRequest request) {
        Attempt[] granted = new Attempt[1];
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(20))
                .until(() -> (granted[0] = provider.tryAcquire(request)).isGranted());
        return granted[0];
    }

    private static long rows(TestDatabase db, String table) {
        try (Connection c = db.dataSource().getConnection();
                ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
