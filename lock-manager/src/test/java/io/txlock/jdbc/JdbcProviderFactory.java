package io.txlock.jdbc;

import io.txlock.Strategy;
import io.txlock.spi.LockProvider;
import io.txlock.testkit.ProviderFactory;
import io.txlock.testkit.ProviderRecipe;
import javax.sql.DataSource;

/** Builds a JDBC provider in a child JVM from "strategy table user url". */
public final class JdbcProviderFactory implements ProviderFactory {

    /**
     * @param db the namespace
     * @param strategy the strategy
     * @param table the lock table
     * @return the recipe for a child JVM
     */
    public static ProviderRecipe recipe(TestDatabase db, Strategy strategy, String table) {
        return new ProviderRecipe(JdbcProviderFactory.class, strategy + " " + table + " " + db.user() + " " + db.url());
    }

    @Override
    public LockProvider create(String config) {
        String[] parts = config.split(" ", 4);
        DataSource pool = TestDatabase.pool(parts[3], parts[2], 16);
        return JdbcLockProvider.builder(pool).strategy(Strategy.valueOf(parts[0])).table(parts[1]).build();
    }
}
