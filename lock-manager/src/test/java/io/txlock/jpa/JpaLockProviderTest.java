package io.txlock.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockNotHeldException;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.jdbc.JdbcLockProvider;
import io.txlock.jdbc.LockTableSql;
import io.txlock.spi.Attempt;
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

/** What is particular to the JPA provider, on every server and strategy: its rows, tokens and clock are the JDBC provider's. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JpaLockProviderTest {

    private final List<JpaDatabase> databases = new ArrayList<>();

    @BeforeAll
    void startDatabases() {
        for (TestDatabase.Kind kind : TestDatabase.Kind.values()) {
            databases.add(JpaDatabase.create(kind));
        }
    }

    @AfterAll
    void dropDatabases() {
        databases.forEach(JpaDatabase::close);
    }

    Stream<Arguments> combinations() {
        return databases.stream().flatMap(db -> Stream.of(Strategy.values()).filter(s -> s != Strategy.ADVISORY)
                .map(s -> Arguments.of(db, s)));
    }

    Stream<Arguments> leasedCombinations() {
        return combinations().filter(a -> a.get()[1] != Strategy.SELECT_FOR_UPDATE);
    }

    private static JpaLockProvider provider(JpaDatabase db, Strategy strategy) {
        return JpaLockProvider.builder(db.factory()).strategy(strategy).reaperPeriod(Duration.ZERO).build();
    }

    private static LockRequest request(String name, String owner, Duration lease, Duration maxBlock) {
        return new LockRequest(name, new LockOwner("test-host", owner, "t1"), lease, maxBlock, false, GrantListener.NONE);
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void grantsAndReleasesWithIncreasingTokens(JpaDatabase db, Strategy strategy) {
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
                    assertThat(other.inspect(name)).isPresent();
                }
                assertThat(a.inspect(name)).isEmpty();
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void tokensAndExclusionAreSharedWithTheJdbcProvider(JpaDatabase db, Strategy strategy) {
        try (LockManager jpa = LockManager.builder(provider(db, strategy)).build();
                LockManager jdbc = LockManager.builder(JdbcLockProvider.builder(db.db().dataSource()).strategy(strategy)
                        .reaperPeriod(Duration.ZERO).build()).build()) {
            String name = "shared-" + strategy;
            long previous = 0;
            for (int i = 0; i < 4; i++) {
                LockManager holder = i % 2 == 0 ? jpa : jdbc;
                LockManager other = i % 2 == 0 ? jdbc : jpa;
                try (LockHandle h = holder.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE))) {
                    assertThat(h.fencingToken()).isGreaterThan(previous);
                    previous = h.fencingToken();
                    assertThat(other.tryAcquire(name, Duration.ofMillis(100))).isEmpty();
                }
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void aWaiterIsGrantedWhenTheHolderReleases(JpaDatabase db, Strategy strategy) throws Exception {
        try (LockManager a = LockManager.builder(provider(db, strategy)).build();
                LockManager b = LockManager.builder(provider(db, strategy)).build()) {
            LockHandle held = a.acquire("handoff");
            CompletableFuture<LockHandle> waiter = b.acquireAsync("handoff",
                    LockOptions.defaults().withWait(Duration.ofSeconds(20))).toCompletableFuture();
            assertThat(waiter).isNotDone();
            long token = held.fencingToken();
            held.release();
            LockHandle next = waiter.get(20, TimeUnit.SECONDS);
            assertThat(next.fencingToken()).isGreaterThan(token);
            next.release();
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("combinations")
    void aTimedWaitEndsWithinItsBound(JpaDatabase db, Strategy strategy) {
        try (LockManager a = LockManager.builder(provider(db, strategy)).build();
                LockManager b = LockManager.builder(provider(db, strategy)).build();
                LockHandle held = a.acquire("bounded")) {
            // 1.3 s: Hibernate would render WAIT 1 on MariaDB (rounded), and ignore it elsewhere
            for (Duration wait : List.of(Duration.ZERO, Duration.ofMillis(1_300))) {
                long start = System.nanoTime();
                assertThat(b.tryAcquire("bounded", wait)).isEmpty();
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertThat(millis).as("waited for %s", wait).isBetween(wait.toMillis() - 10, wait.toMillis() + 3_000L);
            }
            assertThat(held.isValid()).isTrue();
        }
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("leasedCombinations")
    void aStaleGrantCannotRenewOrReleaseTheNextHoldersLock(JpaDatabase db, Strategy strategy) {
        JpaLockProvider provider = provider(db, strategy);
        Attempt stale = provider.tryAcquire(request("stale", "owner-a", Duration.ofMillis(200), Duration.ZERO));
        assertThat(stale.isGranted()).isTrue();
        Attempt[] next = new Attempt[1];
        Awaitility.await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(20)).until(() ->
                (next[0] = provider.tryAcquire(request("stale", "owner-b", Duration.ofSeconds(30), Duration.ZERO))).isGranted());
        assertThat(next[0].grant().fencingToken()).isGreaterThan(stale.grant().fencingToken());

        assertThatThrownBy(() -> provider.renew(stale.grant(), Duration.ofSeconds(30))).isInstanceOf(LockNotHeldException.class);
        assertThatThrownBy(() -> provider.release(stale.grant())).isInstanceOf(LockNotHeldException.class);
        assertThat(provider.inspect("stale")).hasValueSatisfying(info -> {
            assertThat(info.ownerId()).isEqualTo("owner-b/t1");
            assertThat(info.fencingToken()).isEqualTo(next[0].grant().fencingToken());
        });
        provider.release(next[0].grant());
        assertThat(provider.inspect("stale")).isEmpty();
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("leasedCombinations")
    void leasesAreComputedWithTheDatabaseClock(JpaDatabase db, Strategy strategy) throws SQLException {
        JpaLockProvider provider = provider(db, strategy);
        Attempt a = provider.tryAcquire(request("clock", "owner-a", Duration.ofSeconds(90), Duration.ZERO));
        assertThat(millisLeft(db, "clock")).isBetween(85_000L, 90_000L);
        provider.renew(a.grant(), Duration.ofSeconds(300));
        assertThat(millisLeft(db, "clock")).isBetween(295_000L, 300_000L);
        provider.release(a.grant());
    }

    @ParameterizedTest(name = "{0} {1}", autoCloseArguments = false)
    @MethodSource("leasedCombinations")
    void theReaperDeletesExpiredRowsInBatchesAndSparesLiveOnes(JpaDatabase db, Strategy strategy) throws SQLException {
        try (JpaLockProvider provider = JpaLockProvider.builder(db.factory()).strategy(strategy)
                .reaperPeriod(Duration.ZERO).reaperBatchSize(7).build()) {
            String prefix = "reap-" + strategy + "-";
            for (int i = 0; i < 25; i++) {
                assertThat(provider.tryAcquire(request(prefix + "dead-" + i, "dead", Duration.ofMillis(1), Duration.ZERO))
                        .isGranted()).isTrue();
            }
            Attempt live = provider.tryAcquire(request(prefix + "live", "alive", Duration.ofMinutes(5), Duration.ZERO));
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> provider.inspect(prefix + "dead-24").isEmpty());
            assertThat(provider.reapExpired()).isGreaterThanOrEqualTo(25);
            assertThat(rows(db, prefix + "%")).isEqualTo(1);
            assertThat(provider.inspect(prefix + "live")).isPresent();
            provider.release(live.grant());
        }
    }

    @Test
    void reaperSettingsHaveTheJdbcProvidersBounds() {
        JpaLockProvider.Builder builder = JpaLockProvider.builder(databases.get(0).factory());
        for (Duration period : new Duration[] {null, Duration.ofMillis(-1), Duration.ofNanos(999_999), Duration.ofDays(366)}) {
            assertThatThrownBy(() -> builder.reaperPeriod(period)).as("reaperPeriod %s", period)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("from 1 ms to 365 days");
        }
        for (int batch : new int[] {0, 100_001}) {
            assertThatThrownBy(() -> builder.reaperBatchSize(batch)).as("reaperBatchSize %s", batch)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("between 1 and 100000");
        }
    }

    @Test
    void advisoryLocksAreRefusedWithWhereToTakeThem() {
        assertThatThrownBy(() -> JpaLockProvider.builder(databases.get(0).factory()).strategy(Strategy.ADVISORY))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SELECT_FOR_UPDATE, OPTIMISTIC_VERSION, UNIQUE_INSERT")
                .hasMessageContaining("JdbcLockProvider");
    }

    @Test
    void tableNamesAreValidatedIdentifiers() {
        JpaDatabase db = databases.get(0);
        for (String bad : new String[] {"", "1table", "method_lock; DROP TABLE x", "a.b", "x".repeat(49), null}) {
            assertThatThrownBy(() -> JpaLockProvider.builder(db.factory()).table(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("plain SQL identifier");
        }
    }

    private static long rows(JpaDatabase db, String namePattern) throws SQLException {
        try (Connection c = db.db().dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM method_lock WHERE name LIKE ?")) {
            ps.setString(1, namePattern);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Milliseconds until the row's expires_at, by the database clock, as the JDBC provider reads it. */
    private static long millisLeft(JpaDatabase db, String name) throws SQLException {
        try (Connection c = db.db().dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(LockTableSql.of(db.db().dialect(), "method_lock").selectState())) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return rs.getLong(3);
            }
        }
    }
}
