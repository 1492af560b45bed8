package io.txlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.LockHandle;
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
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * {@link Strategy#ADVISORY} beyond the contract kit: the documented name-to-key hash (fixed vectors, and the same
 * key computed by the database itself from the documented formula, in the lock table's schema whatever the search
 * path), names longer than a MySQL user-lock name, no user lock left on a pooled connection after a
 * TRANSACTION-scoped lock, and H2's refusal.
 */
class AdvisoryTest {

    private static final LockOptions LEASE = LockOptions.defaults().withScope(LockScope.LEASE).withWait(Duration.ofSeconds(10));

    @Test
    void postgresKeysAreTheFirstEightBytesOfSha256AsASignedLong() {
        // sha256("public.method_lock:order:42") = 9bf5f488cc165176…
        assertThat(AdvisoryKeys.postgresKey("public.method_lock:order:42")).isEqualTo(0x9bf5f488cc165176L).isEqualTo(-7208586760159866506L);
        // sha256("test.method_lock:job") = b90e23791c65d68b…
        assertThat(AdvisoryKeys.postgresKey("test.method_lock:job")).isEqualTo(-5112109523944483189L);
        // UTF-8: sha256 = ce844d292278a995…
        assertThat(AdvisoryKeys.postgresKey("txl.method_lock:\u00dcn\u00efc\u00f8d\u00e9 \u043a\u043b\u044e\u0447 \u9375"))
                .isEqualTo(0xce844d292278a995L);
        assertThat(AdvisoryKeys.keyText("public", "method_lock", "order:42")).isEqualTo("public.method_lock:order:42");
        assertThat(AdvisoryKeys.keyText(null, "method_lock", "x")).isEqualTo(".method_lock:x");
    }

    @Test
    void userLockNamesAreTheKeyTextWhereItIsShortAndCaselessElseItsSha256InHex() {
        assertThat(AdvisoryKeys.userLockName("test.method_lock:job")).isEqualTo("test.method_lock:job");
        String sixtyFour = "test.method_lock:" + "j".repeat(64 - 17);
        assertThat(AdvisoryKeys.userLockName(sixtyFour)).isEqualTo(sixtyFour);
        assertThat(AdvisoryKeys.userLockName(sixtyFour + "j")).hasSize(64).matches("[0-9a-f]{64}");
        assertThat(AdvisoryKeys.userLockName("public.method_lock:order:42"))
                .isEqualTo("public.method_lock:order:42");
        // letters with case are hashed, so that "Job" and "job" never share MySQL's case-insensitive user lock
        assertThat(AdvisoryKeys.userLockName("test.method_lock:Job")).isEqualTo("d1becadefaab028b37efbe4fb9cd08c3e6001f17748683969d024b32532e0fbd");
        assertThat(AdvisoryKeys.plain("a.b_c:d/e-0123456789z")).isTrue();
        for (String hashed : new String[] {"", "t.m:a b", "t.m:\u00e9", "t.m:x*", "t.m:Z", "t.m:`", "t.m:{", "t.m:@", "t.m:[",
                "t.m:\\", "t.m:;", "t.m:,", "t.m:\u0660"}) {
            assertThat(AdvisoryKeys.plain(hashed)).as(hashed).isFalse();
        }
    }

    /** The key PostgreSQL shows for a held lock is the one the documented formula computes in SQL. */
    @Test
    void aPostgresLockHoldsTheKeyTheDocumentedFormulaComputes() throws SQLException {
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.POSTGRESQL).withLockTable("method_lock");
                LockManager locks = LockManager.builder(provider(db.dataSource())).build()) {
            String name = "order:\u00e9\u9375-42";
            String formula = "SELECT CAST(CAST(('x' || substr(encode(sha256(convert_to(current_schema() || '.method_lock:' || ?,"
                    + " 'UTF8')), 'hex'), 1, 16)) AS bit(64)) AS bigint)";
            try (LockHandle held = locks.acquire(name, LEASE); Connection c = db.dataSource().getConnection()) {
                long key = queryLong(c, formula, name);
                assertThat(queryBoolean(c, "SELECT pg_try_advisory_lock(?)", key)).as("the formula's key while held").isFalse();
            }
            try (Connection c = db.dataSource().getConnection()) {
                long key = queryLong(c, formula, name);
                assertThat(queryBoolean(c, "SELECT pg_try_advisory_lock(?)", key)).as("the formula's key once released").isTrue();
                queryBoolean(c, "SELECT pg_advisory_unlock(?)", key);
            }
        }
    }

    /**
     * A PostgreSQL lock with a wait tries the lock first and waits only for a held one, in the same statement: a free
     * name is taken once (a separate session takes it as soon as it was released once), a held one is waited for in
     * the database and no longer than the wait, and no pooled connection keeps the statement's {@code lock_timeout}.
     */
    @Test
    void aPostgresLockWithAWaitTakesAFreeNameOnceAndWaitsForAHeldOneBoundedInTheDatabase() throws Exception {
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.POSTGRESQL).withLockTable("method_lock");
                LockManager a = LockManager.builder(provider(db.dataSource())).build();
                LockManager b = LockManager.builder(provider(db.dataSource())).build();
                Connection other = java.sql.DriverManager.getConnection(db.url(), db.user(), "")) {
            String formula = "SELECT CAST(CAST(('x' || substr(encode(sha256(convert_to(current_schema() || '.method_lock:' || ?,"
                    + " 'UTF8')), 'hex'), 1, 16)) AS bit(64)) AS bigint)";
            long key = queryLong(other, formula, "once");
            LockHandle free = a.acquire("once", LEASE);
            long first = free.fencingToken();
            assertThat(queryBoolean(other, "SELECT pg_try_advisory_lock(?)", key)).as("while held").isFalse();
            free.release();
            assertThat(queryBoolean(other, "SELECT pg_try_advisory_lock(?)", key)).as("once released: taken once").isTrue();
            assertThat(queryBoolean(other, "SELECT pg_advisory_unlock(?)", key)).isTrue();

            LockHandle held = a.acquire("once", LEASE);
            assertThat(held.fencingToken()).isGreaterThan(first);
            assertThatThrownBy(() -> b.acquire("once", LEASE.withWait(Duration.ofMillis(200))))
                    .as("a wait bounded by lock_timeout").isInstanceOf(io.txlock.LockTimeoutException.class);
            java.util.concurrent.CompletableFuture<LockHandle> waiter =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> b.acquire("once", LEASE));
            while (db.lockWaiters() == 0 && !waiter.isDone()) {
                Thread.sleep(10);
            }
            assertThat(waiter).as("waiting in the database").isNotDone();
            held.release();
            LockHandle woken = waiter.get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(woken.fencingToken()).isGreaterThan(held.fencingToken());
            woken.release();
            assertThat(queryBoolean(other, "SELECT pg_try_advisory_lock(?)", key)).as("once the waiter released: taken once").isTrue();
            assertThat(queryBoolean(other, "SELECT pg_advisory_unlock(?)", key)).isTrue();
            for (int i = 0; i < 4; i++) {
                try (Connection pooled = db.dataSource().getConnection()) {
                    assertThat(queryString(pooled, "SHOW lock_timeout")).as("a pooled connection's lock_timeout").isEqualTo("0");
                }
            }
        }
    }

    /**
     * The key's namespace is the schema the lock table is in, not the connection's current schema: a node whose
     * search path starts with another schema (which has no lock table) still shares the lock of every name.
     */
    @Test
    void nodesWhoseSearchPathsDifferShareTheLocksOfTheTablesSchema() throws SQLException {
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.POSTGRESQL).withLockTable("method_lock")) {
            java.util.regex.Matcher schema = java.util.regex.Pattern.compile("currentSchema=([^&]+)").matcher(db.url());
            assertThat(schema.find()).isTrue();
            String other = schema.group(1) + "_first";
            db.execute("CREATE SCHEMA " + other);
            try (com.zaxxer.hikari.HikariDataSource searching = TestDatabase.pool(
                    db.url().replace(schema.group(), "currentSchema=" + other + "," + schema.group(1)), db.user(), 4);
                    LockManager a = LockManager.builder(provider(db.dataSource())).build();
                    LockManager b = LockManager.builder(provider(searching)).build()) {
                try (Connection c = searching.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT current_schema()");
                        ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    assertThat(rs.getString(1)).as("the second node's current schema").isEqualTo(other);
                }
                try (LockHandle held = a.acquire("shared", LEASE)) {
                    assertThat(b.tryAcquire("shared")).as("the name held by the first node, seen by the second").isEmpty();
                }
                assertThat(b.tryAcquire("shared")).as("once released").hasValueSatisfying(LockHandle::release);
            } finally {
                db.execute("DROP SCHEMA " + other);
            }
        }
    }

    /**
     * Names longer than MySQL's 64-character user-lock names work on MariaDB, under the documented hash, and two long
     * names that differ only at their end are two locks.
     */
    @Test
    void namesLongerThanAUserLockNameWorkOnMariaDb() throws SQLException {
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.MARIADB).withLockTable("method_lock");
                LockManager a = LockManager.builder(provider(db.dataSource())).build();
                LockManager b = LockManager.builder(provider(db.dataSource())).build()) {
            String common = "report:" + "\u00e9".repeat(200) + "x".repeat(40);
            String first = common + "1";
            String second = common + "2";
            assertThat(first.codePointCount(0, first.length())).isEqualTo(248);
            try (LockHandle held = a.acquire(first, LEASE); Connection c = db.dataSource().getConnection()) {
                assertThat(b.tryAcquire(first)).as("the long name while held").isEmpty();
                assertThat(b.tryAcquire(second)).as("another long name with the same start").hasValueSatisfying(LockHandle::release);
                assertThat(queryLong(c, "SELECT IS_USED_LOCK(SHA2(CONCAT(DATABASE(), '.method_lock:', ?), 256)) IS NOT NULL", first))
                        .as("MariaDB holds the user lock the documented formula names").isEqualTo(1);
            }
            assertThat(b.tryAcquire(first)).as("the long name once released").hasValueSatisfying(LockHandle::release);
        }
    }

    /**
     * A TRANSACTION-scoped lock on MariaDB is a GET_LOCK of a session of the provider's own: once the caller's
     * transaction ended, no connection of either pool holds it, although the pools keep every connection open.
     */
    @Test
    void noPooledConnectionKeepsAUserLockAfterItsTransaction() throws Exception {
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.MARIADB).withLockTable("method_lock")) {
            JdbcTransactions tx = JdbcTransactions.over(db.dataSource());
            String name = "pooled";
            try (LockManager locks = LockManager.builder(JdbcLockProvider.builder(tx).strategy(Strategy.ADVISORY)
                    .reaperPeriod(Duration.ZERO).build()).transactions(tx).build()) {
                String lockName = tx.inTransaction(c -> {
                    locks.acquire(name);
                    String userLock = queryString(c, "SELECT DATABASE()") + ".method_lock:" + name;
                    assertThat(queryLong(c, "SELECT IS_USED_LOCK(?) IS NOT NULL", userLock)).as("held in the transaction").isEqualTo(1);
                    assertThat(queryLong(c, "SELECT IS_USED_LOCK(?) = CONNECTION_ID()", userLock))
                            .as("held by another session than the caller's").isEqualTo(0);
                    return userLock;
                });
                try (Connection c = db.dataSource().getConnection()) {
                    assertThat(queryLong(c, "SELECT IS_USED_LOCK(?) IS NULL", lockName)).as("held by no session after commit").isEqualTo(1);
                }
            }
        }
    }

    @Test
    void h2IsRefusedWhenTheProviderIsBuiltNamingTheStrategiesItRuns() {
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.H2).withLockTable("method_lock")) {
            assertThatThrownBy(() -> provider(db.dataSource()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("ADVISORY")
                    .hasMessageContaining("h2 has none")
                    .hasMessageContaining("[SELECT_FOR_UPDATE, OPTIMISTIC_VERSION, UNIQUE_INSERT]");
            assertThatThrownBy(() -> JdbcLockProvider.builder(db.dataSource()).strategy(Strategy.ADVISORY).dialect(JdbcDialect.H2).build())
                    .as("with the dialect given").isInstanceOf(IllegalArgumentException.class).hasMessageContaining("h2 has none");
        }
    }

    private static JdbcLockProvider provider(DataSource dataSource) {
        return JdbcLockProvider.builder(dataSource).strategy(Strategy.ADVISORY).reaperPeriod(Duration.ZERO).build();
    }

    private static long queryLong(Connection c, String sql, Object param) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setObject(1, param);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static boolean queryBoolean(Connection c, String sql, long param) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, param);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private static String queryString(Connection c, String sql) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getString(1);
        }
    }
}
