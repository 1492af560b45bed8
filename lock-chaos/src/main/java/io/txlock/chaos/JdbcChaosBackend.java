package io.txlock.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txlock.Strategy;
import io.txlock.jdbc.JdbcDialect;
import io.txlock.jdbc.JdbcLockProvider;
import io.txlock.jdbc.JdbcLockSchema;
import io.txlock.servers.PrivateServer;
import io.txlock.spi.LockProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The database backends: the lock table on a private server, each strategy of the JDBC provider, and a crash and
 * restart of the server as backend fault. Holder configuration: {@code <jdbc url> <strategy>}.
 */
abstract class JdbcChaosBackend implements ServerFaults {

    static final String TABLE = "chaos_lock";

    private final JdbcDialect dialect;
    private PrivateServer server;
    private boolean tableCreated;

    /** @param dialect the dialect of the server, whose name in lower case is the backend's */
    JdbcChaosBackend(JdbcDialect dialect) {
        this.dialect = dialect;
    }

    @Override
    public String name() {
        return dialect.name().toLowerCase(Locale.ROOT);
    }

    /** @return the dialect of the server */
    final JdbcDialect dialect() {
        return dialect;
    }

    /** @return the JDBC URL of the database the lock table lives in, on the running private server */
    abstract String jdbcUrl() throws Exception;

    /**
     * @param dir where its data lives
     * @return the started private server, with the database {@link #jdbcUrl()} names
     */
    abstract PrivateServer launch(Path dir) throws Exception;

    @Override
    public void start(Path dir) throws Exception {
        server = launch(dir);
    }

    @Override
    public List<String> strategies() {
        return Arrays.stream(Strategy.values()).map(Strategy::name).toList();
    }

    @Override
    public String holderConfig(String strategy, String runId) throws Exception {
        Strategy.valueOf(strategy);
        String url = jdbcUrl();
        if (!tableCreated) {
            try (HikariDataSource ds = pool(url, 1)) {
                JdbcLockSchema.create(ds, dialect(), TABLE);
            }
            tableCreated = true;
        }
        return url + " " + strategy;
    }

    @Override
    public LockProvider provider(String config) {
        String[] parts = config.split(" ", 2);
        return JdbcLockProvider.builder(pool(parts[0], 6)).strategy(Strategy.valueOf(parts[1]))
                .dialect(dialect()).table(TABLE).build();
    }

    private static HikariDataSource pool(String url, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(3000);
        config.setValidationTimeout(1000);
        config.setInitializationFailTimeout(-1);
        config.setPoolName("chaos");
        return new HikariDataSource(config);
    }

    @Override
    public PrivateServer server() {
        return server;
    }

    /**
     * A row lock lives as long as the transaction of its connection, an advisory lock as long as its session,
     * whatever the lease.
     */
    @Override
    public boolean pausedHolderKeepsLock(String strategy) {
        Strategy s = Strategy.valueOf(strategy);
        return s == Strategy.SELECT_FOR_UPDATE || s == Strategy.ADVISORY;
    }

    /**
     * The README's limit of {@code SELECT_FOR_UPDATE} (and of {@code ADVISORY}): a crash ends the row lock (the
     * advisory lock) at once, and the holder learns it at its next use of the connection (the renewal), within the lease.
     */
    @Override
    public Duration exclusionGapAfterBackendFault(String strategy, Duration lease) {
        return pausedHolderKeepsLock(strategy) ? lease : Duration.ZERO;
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }
}
