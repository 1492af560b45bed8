package io.txlock.bench;

import io.txlock.LockManager;
import io.txlock.jdbc.JdbcDialect;
import io.txlock.jdbc.JdbcTransactions;
import io.txlock.spi.LockProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A backend whose nodes all share one lock provider of a test (a broken lock, most often), with orders in
 * embedded H2. Threads only: it has no floor and cannot be reached from a worker JVM.
 */
final class ProviderBackend implements Backend {

    private final UnsafeBackend orders;
    private final LockProvider provider;
    private final String strategy;

    /**
     * @param strategy the name the results show
     * @param provider shared by every node; its {@code close()} is called by every node's manager
     * @param connections connections of the orders database
     */
    ProviderBackend(String strategy, LockProvider provider, int connections) {
        this.strategy = strategy;
        this.provider = provider;
        this.orders = new UnsafeBackend(connections);
    }

    @Override
    public BackendKind kind() {
        return BackendKind.NONE;
    }

    @Override
    public String describe() {
        return provider.describe();
    }

    @Override
    public List<String> strategies() {
        return List.of(strategy);
    }

    @Override
    public Site openSite(String strategy, int nodes) {
        Site business = orders.openSite(UnsafeBackend.STRATEGY, 1);
        JdbcTransactions tx = business.transactions();
        List<LockManager> managers = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            managers.add(LockManager.builder(provider).transactions(tx).build());
        }
        return new Site(managers, tx, JdbcDialect.H2, List.of(business));
    }

    @Override
    public Optional<RawLocks> openRaw(String strategy) {
        return Optional.empty();
    }

    @Override
    public BackendSpec childSpec() {
        throw new UnsupportedOperationException("a test's provider lives in the test's JVM");
    }

    @Override
    public void close() {
        orders.close();
    }
}
