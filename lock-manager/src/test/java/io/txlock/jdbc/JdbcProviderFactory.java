package io.txlock.jdbc;

import io.txlock.Strategy;
import io.txlock.spi.LockProvider;
import io.txlock.testkit.ProviderFactory;
import io.txlock.testkit.ProviderRecipe;
import javax.sql.DataSource;

/** Builds a JDBC provider in a child JVM from "strategy dialect table user url". */
public final class JdbcProviderFactory implements ProviderFactory {

    /**
     * @param db the namespace
     * @param strategy the strategy
     * @param table the lock table
     * @param dialect the SQL to speak
     * @return the recipe for a child JVM
     */
    public static ProviderRecipe recipe(TestDatabase db, Strategy strategy, String table, JdbcDialect dialect) {
        return new ProviderRecipe(JdbcProviderFactory.class, strategy + " " + dialect + " " + table + " " + db.user() + " " + db.url());
    }

    @Override
    public LockProvider create(String config) {
        String[] parts = config.split(" ", 5);
        DataSource pool = TestDatabase.pool(parts[4], parts[3], 16);
        return JdbcLockProvider.builder(pool).strategy(Strategy.valueOf(parts[0])).dialect(JdbcDialect.valueOf(parts[1]))
                .table(parts[2]).build();
    }
}
