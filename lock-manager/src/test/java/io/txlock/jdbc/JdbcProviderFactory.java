package io.txlock.jdbc;

import io.txlock.Strategy;
import io.txlock.spi.LockProvider;
import io.txlock.testkit.ProviderFactory;
import io.txlock.testkit.ProviderRecipe;
import io.txlock.testkit.TestDatabase;
import javax.sql.DataSource;

/** Builds a JDBC provider in a child JVM from "strategy dialect table user url". */
public final class JdbcProviderFactory implements ProviderFactory {

    /**
     * @param url the namespace's JDBC URL
     * @param user its user
     * @param strategy the strategy
     * @param table the lock table
     * @param dialect the SQL to speak, or null to detect it
     * @return the recipe for a child JVM
     */
    public static ProviderRecipe recipe(String url, String user, Strategy strategy, String table, JdbcDialect dialect) {
        return new ProviderRecipe(JdbcProviderFactory.class, strategy + " " + dialect + " " + table + " " + user + " " + url);
    }

    @Override
    public LockProvider create(String config) {
        String[] parts = config.split(" ", 5);
        DataSource pool = TestDatabase.pool(parts[4], parts[3], 16);
        JdbcLockProvider.Builder builder = JdbcLockProvider.builder(pool).strategy(Strategy.valueOf(parts[0])).table(parts[2]);
        return (parts[1].equals("null") ? builder : builder.dialect(JdbcDialect.valueOf(parts[1]))).build();
    }
}
