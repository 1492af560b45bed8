package io.txlock.bench;

import io.txlock.jdbc.JdbcDialect;
import java.util.List;
import java.util.Optional;

/**
 * {@code --backend none}: every node gets a lock manager over an {@link UnsafeLockProvider}, and orders go to an
 * embedded H2 database. Nothing here locks; the checker must fail.
 */
final class UnsafeBackend implements Backend {

    static final String STRATEGY = "NONE";

    private final EmbeddedOrders orders;

    /** @param poolSize connections of the orders database */
    UnsafeBackend(int poolSize) {
        this.orders = new EmbeddedOrders(poolSize);
    }

    @Override
    public BackendKind kind() {
        return BackendKind.NONE;
    }

    @Override
    public String describe() {
        return "no lock (every acquire granted at once); orders in embedded H2";
    }

    @Override
    public List<String> strategies() {
        return List.of(STRATEGY);
    }

    @Override
    public Site openSite(String strategy, int nodes) {
        return Site.of(nodes, i -> new UnsafeLockProvider(), orders.transactions(), JdbcDialect.H2, List.of());
    }

    @Override
    public Optional<RawLocks> openRaw(String strategy) {
        return Optional.empty();
    }

    @Override
    public BackendSpec childSpec() {
        return new BackendSpec(BackendKind.NONE, null, null, "", null, true);
    }

    @Override
    public void close() {
        orders.close();
    }
}
