package io.txlock.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.concurrent.TimeUnit;

/** Connection pools that are full before anyone measures through them. */
final class Pools {

    private static final long FILL_TIMEOUT_SECONDS = 120;

    private Pools() {
    }

    /**
     * @param config a pool whose minimum idle equals its maximum size
     * @return the pool, once it holds all its connections
     * @throws IllegalStateException if it could not fill within two minutes (the server refused connections)
     */
    static HikariDataSource filled(HikariConfig config) {
        HikariDataSource pool = new HikariDataSource(config);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(FILL_TIMEOUT_SECONDS);
        while (pool.getHikariPoolMXBean().getTotalConnections() < config.getMaximumPoolSize()) {
            if (System.nanoTime() > deadline) {
                int got = pool.getHikariPoolMXBean().getTotalConnections();
                pool.close();
                throw new IllegalStateException("could open only " + got + " of " + config.getMaximumPoolSize() + " connections to "
                        + config.getJdbcUrl() + " in " + FILL_TIMEOUT_SECONDS + " s (is the server's connection limit too low?)");
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                pool.close();
                throw new IllegalStateException("interrupted while filling the pool", e);
            }
        }
        return pool;
    }
}
