package io.txlock.jpa;

import com.zaxxer.hikari.HikariDataSource;
import io.txlock.Strategy;
import io.txlock.entity.MethodLock;
import io.txlock.spi.Grant;
import io.txlock.spi.LockProvider;
import io.txlock.testkit.LockContractTest;
import io.txlock.testkit.ProviderRecipe;
import io.txlock.testkit.TestDatabase;
import jakarta.persistence.EntityManagerFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

/** The contract kit for the JPA provider on one database server with one strategy: one namespace and one Hibernate boot per class. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class JpaContractTest extends LockContractTest {

    private final Strategy strategy;
    private final JpaDatabase db;
    private final List<AutoCloseable> unreachable = new ArrayList<>();

    JpaContractTest(TestDatabase.Kind kind, Strategy strategy) {
        this.strategy = strategy;
        this.db = JpaDatabase.create(kind);
    }

    @AfterAll
    void dropDatabase() throws Exception {
        for (AutoCloseable c : unreachable) {
            c.close();
        }
        db.close();
    }

    @Override
    protected LockProvider newProvider() {
        return JpaLockProvider.builder(db.factory()).strategy(strategy).build();
    }

    @Override
    protected ProviderRecipe recipe() {
        return JpaProviderFactory.recipe(db, strategy);
    }

    /** SELECT_FOR_UPDATE in LEASE scope: the holder's row is written in its open transaction, invisible to others. */
    @Override
    protected boolean inspectShowsTheHolder() {
        return strategy != Strategy.SELECT_FOR_UPDATE;
    }

    /** SELECT_FOR_UPDATE in LEASE scope: the row lock lasts as long as its entity manager's transaction. */
    @Override
    protected boolean backendExpiresLeases() {
        return strategy != Strategy.SELECT_FOR_UPDATE;
    }

    /**
     * OPTIMISTIC_VERSION and UNIQUE_INSERT: a LEASE grant is the row's committed token and owner, which renewal and
     * release check, so the dead holder's grant is rebuilt from what it reported. SELECT_FOR_UPDATE in LEASE scope:
     * the grant is the dead holder's own entity manager and connection, which nobody else can have.
     */
    @Override
    protected Optional<Grant> grantOfADeadHolder(String name, long token, String ownerId) {
        return strategy == Strategy.SELECT_FOR_UPDATE ? Optional.empty()
                : Optional.of(new JpaGrant(name, token, ownerId, true, false, null));
    }

    /** SELECT_FOR_UPDATE in LEASE scope keeps a connection of the pool (16) per held lock. */
    @Override
    protected int locksHeldAtOnce() {
        return strategy == Strategy.SELECT_FOR_UPDATE ? 12 : super.locksHeldAtOnce();
    }

    /** Hibernate boots without the database (dialect given, no metadata access); every statement then fails. */
    @Override
    protected LockProvider newUnreachableProvider() {
        TestDatabase.Kind kind = db.db().kind();
        String url = switch (kind) {
            case H2 -> "jdbc:h2:tcp://127.0.0.1:1/mem:unreachable";
            case POSTGRESQL -> "jdbc:postgresql://127.0.0.1:1/test?connectTimeout=2";
            case MARIADB -> "jdbc:mariadb://127.0.0.1:1/test?connectTimeout=2000";
        };
        String dialect = switch (kind) {
            case H2 -> "org.hibernate.dialect.H2Dialect";
            case POSTGRESQL -> "org.hibernate.dialect.PostgreSQLDialect";
            case MARIADB -> "org.hibernate.dialect.MariaDBDialect";
        };
        HikariDataSource pool = JpaProviderFactory.pool(url, db.db().user(), 2, 500);
        unreachable.add(pool);
        EntityManagerFactory factory = TestPersistenceUnit.create(pool, Map.of("hibernate.dialect", dialect,
                "hibernate.boot.allow_jdbc_metadata_access", "false"), MethodLock.class);
        unreachable.add(0, factory::close);
        return JpaLockProvider.builder(factory).strategy(strategy).dialect(db.db().dialect()).build();
    }
}
