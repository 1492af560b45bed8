package io.txlock.jdbc;

import io.txlock.Strategy;
import io.txlock.spi.LockProvider;
import io.txlock.testkit.LockContractTest;
import io.txlock.testkit.ProviderRecipe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

/** The contract kit on one database server with one strategy, in a fresh namespace. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class JdbcContractTest extends LockContractTest {

    private final Strategy strategy;
    private final TestDatabase db;

    JdbcContractTest(TestDatabase.Kind kind, Strategy strategy) {
        this.strategy = strategy;
        this.db = TestDatabase.create(kind).withLockTable("method_lock");
    }

    @AfterAll
    void dropDatabase() {
        db.close();
    }

    @Override
    protected LockProvider newProvider() {
        return JdbcLockProvider.builder(db.dataSource()).strategy(strategy).build();
    }

    @Override
    protected ProviderRecipe recipe() {
        return JdbcProviderFactory.recipe(db, strategy, "method_lock");
    }

    @Override
    protected LockProvider newUnreachableProvider() {
        String url = switch (db.kind()) {
            case H2 -> "jdbc:h2:tcp://127.0.0.1:1/mem:unreachable";
            case POSTGRESQL -> "jdbc:postgresql://127.0.0.1:1/test?connectTimeout=2";
            case MARIADB -> "jdbc:mariadb://127.0.0.1:1/test?connectTimeout=2000";
        };
        return JdbcLockProvider.builder(TestDatabase.pool(url, db.user(), 2)).strategy(strategy).build();
    }
}
