package io.txlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.LockBackendException;
import io.txlock.LockManager;
import io.txlock.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Setups that cannot work get an error that says what to fix, never a raw SQL error or an unchecked one. */
class JdbcMisconfigurationTest {

    @Test
    void aDialectThatDoesNotMatchTheDatabaseIsRefusedNamingTheDatabaseFound() {
        try (TestDatabase postgres = TestDatabase.create(TestDatabase.Kind.POSTGRESQL);
                TestDatabase h2 = TestDatabase.create(TestDatabase.Kind.H2).withLockTable("method_lock")) {
            assertThatThrownBy(() -> JdbcLockSchema.create(postgres.dataSource(), JdbcDialect.H2, "method_lock"))
                    .as("creating the table with H2's dialect on PostgreSQL").isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("does not match").hasMessageContaining("PostgreSQL").hasMessageContaining("JdbcDialect.POSTGRESQL");
            assertThatThrownBy(() -> JdbcLockProvider.builder(h2.dataSource()).dialect(JdbcDialect.POSTGRESQL).build())
                    .as("a provider with PostgreSQL's dialect on H2").isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("does not match").hasMessageContaining("H2").hasMessageContaining("JdbcDialect.H2");
            JdbcLockSchema.create(postgres.dataSource(), JdbcDialect.POSTGRESQL, "method_lock");
        }
    }

    @Test
    void aDataSourceFailingWithAnUncheckedExceptionIsABackendFailureLikeAnSqlException() {
        try (TestDatabase h2 = TestDatabase.create(TestDatabase.Kind.H2).withLockTable("method_lock")) {
            AtomicBoolean failing = new AtomicBoolean(true);
            DelegatingDataSource flaky = new DelegatingDataSource(h2.dataSource()) {
                @Override
                public Connection getConnection() throws SQLException {
                    if (failing.get()) {
                        throw new IllegalStateException("the pool is shut down");
                    }
                    return target.getConnection();
                }

                @Override
                public Connection getConnection(String user, String password) throws SQLException {
                    return getConnection();
                }
            };
            try (LockManager locks = LockManager.builder(JdbcLockProvider.builder(flaky).reaperPeriod(java.time.Duration.ZERO).build()).build()) {
                assertThatThrownBy(() -> locks.acquire("flaky")).as("acquire over a failing datasource")
                        .isInstanceOf(LockBackendException.class).hasMessageContaining("the pool is shut down");
                failing.set(false);
                assertThat(locks.tryAcquire("flaky")).as("acquire once the datasource works again").isPresent();
            }
        }
    }

    @Test
    void createIfAbsentFindsTheDialectAndCreatesTheTableOnce() {
        for (TestDatabase.Kind kind : TestDatabase.Kind.values()) {
            try (TestDatabase db = TestDatabase.create(kind)) {
                assertThat(JdbcLockSchema.createIfAbsent(db.dataSource())).as("the dialect found on %s", kind).isEqualTo(db.dialect());
                assertThat(JdbcLockSchema.createIfAbsent(db.dataSource())).as("a second createIfAbsent on %s", kind).isEqualTo(db.dialect());
                try (LockManager locks = LockManager.builder(JdbcLockProvider.builder(db.dataSource()).reaperPeriod(java.time.Duration.ZERO).build()).build()) {
                    assertThat(locks.tryAcquire("created")).as("a lock on the table createIfAbsent made on %s", kind).isPresent();
                }
            }
        }
    }

    @Test
    void anInMemoryH2DatabaseThatVanishesWithItsLastConnectionIsNamedInTheError() {
        org.h2.jdbcx.JdbcDataSource vanishing = new org.h2.jdbcx.JdbcDataSource();
        vanishing.setURL("jdbc:h2:mem:vanishing_" + System.nanoTime());
        JdbcLockSchema.create(vanishing, JdbcDialect.H2, "method_lock");
        assertThatThrownBy(() -> JdbcLockProvider.builder(vanishing).build()).as("a provider on an in-memory H2 without DB_CLOSE_DELAY")
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("DB_CLOSE_DELAY=-1");
    }

    @Test
    void aManagerOverAProviderBuiltOnJdbcTransactionsFindsTheirTransactionsWithoutBeingTold() throws Exception {
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.H2).withLockTable("method_lock")) {
            JdbcTransactions tx = JdbcTransactions.over(db.dataSource());
            try (LockManager locks = LockManager.builder(JdbcLockProvider.builder(tx).reaperPeriod(java.time.Duration.ZERO).build()).build();
                    LockManager other = LockManager.builder(JdbcLockProvider.builder(db.dataSource()).reaperPeriod(java.time.Duration.ZERO).build()).build()) {
                tx.inTransaction(c -> {
                    locks.acquire("account:7");
                    assertThat(other.tryAcquire("account:7")).as("'account:7' inside the transaction that took it").isEmpty();
                    return null;
                });
                assertThat(other.tryAcquire("account:7")).as("'account:7' after the transaction that took it in AUTO scope committed")
                        .hasValueSatisfying(io.txlock.LockHandle::release);
            }
            assertThatThrownBy(() -> LockManager.builder(JdbcLockProvider.builder(tx).reaperPeriod(java.time.Duration.ZERO).build())
                    .transactions(io.txlock.spi.TransactionSupport.none()).build())
                    .as("a manager given other transactions than its provider's").isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("the same");
        }
    }
}
