package io.txlock.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txlock.jdbc.JdbcTransactions;
import java.util.UUID;

/**
 * The business database of a backend that is not a database (ZooKeeper, Redis, no lock at all): an in-memory H2
 * database of this JVM, where the idempotency scenario stores its orders. Opened on first use.
 */
final class EmbeddedOrders implements AutoCloseable {

    private final int poolSize;
    private HikariDataSource pool;
    private JdbcTransactions transactions;

    /** @param poolSize connections: one per order client, a few spare */
    EmbeddedOrders(int poolSize) {
        this.poolSize = poolSize;
    }

    /** @return local transactions over the database */
    synchronized JdbcTransactions transactions() {
        if (pool == null) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl("jdbc:h2:mem:txlock_orders_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1");
            config.setUsername("sa");
            config.setMaximumPoolSize(poolSize);
            config.setMinimumIdle(poolSize);
            config.setPoolName("bench-orders");
            config.setConnectionInitSql("SET LOCK_TIMEOUT " + JdbcBackend.STATEMENT_LOCK_WAIT.toMillis());
            pool = Pools.filled(config);
            transactions = JdbcTransactions.over(pool);
        }
        return transactions;
    }

    @Override
    public synchronized void close() {
        if (pool != null) {
            try (java.sql.Connection c = pool.getConnection(); java.sql.Statement s = c.createStatement()) {
                s.execute("SHUTDOWN");
            } catch (java.sql.SQLException ignored) {
                // gone already
            }
            pool.close();
        }
    }
}
