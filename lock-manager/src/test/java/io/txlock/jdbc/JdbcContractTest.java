package io.txlock.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txlock.Strategy;
import io.txlock.spi.Grant;
import io.txlock.spi.LockProvider;
import io.txlock.testkit.LockContractTest;
import io.txlock.testkit.ProviderRecipe;
import io.txlock.testkit.TestDatabase;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

/** The contract kit on one database server with one strategy, in a fresh namespace. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class JdbcContractTest extends LockContractTest {

    private final Strategy strategy;
    private final JdbcDialect dialect;
    private final TestDatabase db;
    private final String url;
    private final HikariDataSource pool;
    private final java.util.List<HikariDataSource> unreachablePools = new java.util.ArrayList<>();

    JdbcContractTest(TestDatabase.Kind kind, Strategy strategy) {
        this(kind, strategy, kind.dialect, kind.dialect, false);
    }

    /**
     * The kit with {@code tableDialect}'s table and {@code dialect}'s SQL on {@code kind}'s server, e.g. MySQL's on
     * MariaDB.
     *
     * @param dialect the provider's dialect, or null to let it detect the dialect from the connection
     * @param mysqlDriver on MariaDB, connect with MySQL Connector/J, as a MySQL application does
     */
    JdbcContractTest(TestDatabase.Kind kind, Strategy strategy, JdbcDialect tableDialect, JdbcDialect dialect, boolean mysqlDriver) {
        this.strategy = strategy;
        this.dialect = dialect;
        this.db = TestDatabase.create(kind).withLockTable("method_lock", tableDialect);
        this.url = mysqlDriver ? db.url().replace("jdbc:mariadb:", "jdbc:mysql:") : db.url();
        this.pool = mysqlDriver ? TestDatabase.pool(url, db.user(), 16) : null;
    }

    @AfterAll
    void dropDatabase() {
        unreachablePools.forEach(HikariDataSource::close);
        if (pool != null) {
            pool.close();
        }
        db.close();
    }

    @Override
    protected LockProvider newProvider() {
        JdbcLockProvider.Builder builder = JdbcLockProvider.builder(pool != null ? pool : db.dataSource()).strategy(strategy);
        return (dialect != null ? builder.dialect(dialect) : builder).build();
    }

    @Override
    protected ProviderRecipe recipe() {
        return JdbcProviderFactory.recipe(url, db.user(), strategy, "method_lock", dialect);
    }

    /** A lock held by a connection: SELECT_FOR_UPDATE's row lock, an ADVISORY lock; not a row with a lease. */
    private boolean heldByAConnection() {
        return strategy == Strategy.SELECT_FOR_UPDATE || strategy == Strategy.ADVISORY;
    }

    /**
     * SELECT_FOR_UPDATE in LEASE scope: the holder's row is written in its open transaction, invisible to others;
     * ADVISORY writes no row, and the database does not name an advisory lock's holder.
     */
    @Override
    protected boolean inspectShowsTheHolder() {
        return !heldByAConnection();
    }

    /** The row lock lasts as long as its connection's transaction, an advisory lock as long as its session. */
    @Override
    protected boolean backendExpiresLeases() {
        return !heldByAConnection();
    }

    /** In LEASE scope the grant is the dead holder's own connection, which nobody else can have. */
    @Override
    protected Optional<Grant> grantOfADeadHolder(String name, long token, String ownerId) {
        return heldByAConnection() ? Optional.empty() : Optional.of(new JdbcGrant(name, token, ownerId, true, false, null));
    }

    /** In LEASE scope a lock held by a connection keeps one of the pool (16) per held lock. */
    @Override
    protected int locksHeldAtOnce() {
        return heldByAConnection() ? 12 : super.locksHeldAtOnce();
    }

    @Override
    protected LockProvider newUnreachableProvider() {
        String url = switch (db.kind()) {
            case H2 -> "jdbc:h2:tcp://127.0.0.1:1/mem:unreachable";
            case POSTGRESQL -> "jdbc:postgresql://127.0.0.1:1/test?connectTimeout=2";
            case MARIADB -> "jdbc:mariadb://127.0.0.1:1/test?connectTimeout=2000";
        };
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(db.user());
        config.setMaximumPoolSize(2);
        config.setConnectionTimeout(500);
        config.setMinimumIdle(0);
        config.setInitializationFailTimeout(-1);
        HikariDataSource pool = new HikariDataSource(config);
        unreachablePools.add(pool);
        return JdbcLockProvider.builder(pool).strategy(strategy).build();
    }
}
