package io.txlock.jpa;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txlock.Strategy;
import io.txlock.spi.LockProvider;
import io.txlock.testkit.ProviderFactory;
import io.txlock.testkit.ProviderRecipe;

/** Builds a JPA provider (Hibernate over a pool) in a child JVM from "strategy user url". */
public final class JpaProviderFactory implements ProviderFactory {

    /**
     * @param db the namespace
     * @param strategy the strategy
     * @return the recipe for a child JVM
     */
    public static ProviderRecipe recipe(JpaDatabase db, Strategy strategy) {
        return new ProviderRecipe(JpaProviderFactory.class, strategy + " " + db.db().user() + " " + db.db().url());
    }

    @Override
    public LockProvider create(String config) {
        String[] parts = config.split(" ", 3);
        return JpaLockProvider.builder(TestPersistenceUnit.methodLock(pool(parts[2], parts[1], 16, 5_000)))
                .strategy(Strategy.valueOf(parts[0])).build();
    }

    static HikariDataSource pool(String url, String user, int size, long connectTimeoutMillis) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword("");
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(connectTimeoutMillis);
        config.setInitializationFailTimeout(-1);
        return new HikariDataSource(config);
    }
}
