package io.txlock.it.app;

import io.txlock.LockManager;
import io.txlock.Strategy;
import io.txlock.jdbc.JdbcDialect;
import io.txlock.jdbc.JdbcLockProvider;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;

/**
 * The nodes of a cluster, inside one application: per strategy, {@link #NODES} managers over the application's
 * datasources, each with its own instance id, as separate JVMs would have. Two nodes never share the core's
 * in-JVM queue: they exclude each other only through the database, inside the callers' JTA transactions. Plus
 * one manager with the JTA datasource only.
 */
@ApplicationScoped
public class Strategies {

    /** How many nodes per strategy. */
    public static final int NODES = 3;

    @Resource(lookup = "java:app/jdbc/txlock")
    DataSource dataSource;

    @Resource(lookup = "java:app/jdbc/txlock-nonjta")
    DataSource nonJtaDataSource;

    private final Map<Strategy, List<LockManager>> nodes = new EnumMap<>(Strategy.class);
    private LockManager jtaOnly;

    @PostConstruct
    void build() {
        for (Strategy strategy : databaseStrategies()) {
            List<LockManager> managers = new ArrayList<>();
            for (int node = 0; node < NODES; node++) {
                managers.add(LockManager.builder(JdbcLockProvider.builder(dataSource).leaseDataSource(nonJtaDataSource)
                        .strategy(strategy).reaperPeriod(Duration.ZERO).build()).build());
            }
            nodes.put(strategy, List.copyOf(managers));
        }
        jtaOnly = LockManager.builder(JdbcLockProvider.builder(dataSource).reaperPeriod(Duration.ZERO).build()).build();
    }

    /** @return the strategies the application's database runs (not ADVISORY on H2) */
    private Set<Strategy> databaseStrategies() {
        try (Connection c = nonJtaDataSource.getConnection()) {
            return JdbcDialect.detect(c.getMetaData()).strategies();
        } catch (SQLException e) {
            throw new IllegalStateException("could not reach the application's database: " + e.getMessage(), e);
        }
    }

    /** @return every strategy a node has, in declaration order: those the database runs */
    public Set<Strategy> all() {
        return nodes.keySet();
    }

    @PreDestroy
    void close() {
        nodes.values().forEach(managers -> managers.forEach(LockManager::close));
        jtaOnly.close();
    }

    /**
     * @param strategy the strategy
     * @return the first node's manager with that strategy
     */
    public LockManager get(Strategy strategy) {
        return node(0, strategy);
    }

    /**
     * @param node 0 to {@link #NODES} - 1
     * @param strategy the strategy
     * @return that node's manager with that strategy
     */
    public LockManager node(int node, Strategy strategy) {
        return nodes.get(strategy).get(node);
    }

    /**
     * Builds a node on a thread without a context class loader, as some libraries' threads are: there neither the
     * container's naming context nor the application's CDI container can be reached. Close it when done.
     *
     * @param strategy the strategy
     * @return the new node
     * @throws Exception if building failed
     */
    public LockManager buildOnAThreadWithoutContext(Strategy strategy) throws Exception {
        CompletableFuture<LockManager> built = new CompletableFuture<>();
        Thread thread = new Thread(() -> built.complete(LockManager.builder(JdbcLockProvider.builder(dataSource)
                .leaseDataSource(nonJtaDataSource).strategy(strategy).reaperPeriod(Duration.ZERO).build()).build()));
        thread.setContextClassLoader(null);
        thread.start();
        return built.get();
    }

    /** @return a manager whose provider has the JTA datasource only, no lease datasource */
    public LockManager jtaOnly() {
        return jtaOnly;
    }
}
