package io.txlock.jdbc;

import io.txlock.Strategy;
import io.txlock.spi.LockProvider;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * What the providers that lock with a table ({@link JdbcLockProvider}, {@code JpaLockProvider}) share besides their
 * strategies: how they describe themselves, and that their locks block waiters in the database and join the
 * caller's transaction in TRANSACTION scope.
 */
public abstract class LockTableProvider implements LockProvider {

    private final String kind;
    private final Strategy strategy;
    private final String table;
    private final Supplier<JdbcDialect> dialect;

    /**
     * For txlock's providers.
     *
     * @param kind how the provider reaches the table, for {@link #describe()}
     * @param strategy the strategy
     * @param table the lock table
     * @param dialect the dialect, or null while the database was never reached
     */
    protected LockTableProvider(String kind, Strategy strategy, String table, Supplier<JdbcDialect> dialect) {
        this.kind = kind;
        this.strategy = strategy;
        this.table = table;
        this.dialect = dialect;
    }

    /** @return the strategy */
    public Strategy strategy() {
        return strategy;
    }

    /** @return the lock table */
    public String table() {
        return table;
    }

    @Override
    public String describe() {
        JdbcDialect d = dialect.get();
        return kind + " " + (d == null ? "" : d.name().toLowerCase(Locale.ROOT) + " ") + strategy + " on " + table;
    }

    /**
     * @return true: the database's row locks (and, with {@link Strategy#ADVISORY}, its advisory locks) block waiters,
     *     bounded by their wait
     */
    @Override
    public boolean blocksWhileWaiting() {
        return true;
    }

    /** @return true: in TRANSACTION scope the lock's statements run in the caller's transaction */
    @Override
    public boolean joinsCallerTransaction() {
        return true;
    }
}
