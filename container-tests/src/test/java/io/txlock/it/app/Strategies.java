package io.txlock.it.app;

import io.txlock.LockManager;
import io.txlock.Strategy;
import io.txlock.jdbc.JdbcLockProvider;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import javax.sql.DataSource;

/** One manager per strategy over the application's datasources, and one with the JTA datasource only. */
@ApplicationScoped
public class Strategies {

    @Resource(lookup = "java:app/jdbc/txlock")
    DataSource dataSource;

    @Resource(lookup = "java:app/jdbc/txlock-nonjta")
    DataSource nonJtaDataSource;

    private final Map<Strategy, LockManager> managers = new EnumMap<>(Strategy.class);
    private LockManager jtaOnly;

    @PostConstruct
    void build() {
        for (Strategy strategy : Strategy.values()) {
            managers.put(strategy, LockManager.builder(JdbcLockProvider.builder(dataSource).leaseDataSource(nonJtaDataSource)
                    .strategy(strategy).reaperPeriod(Duration.ZERO).build()).build());
        }
        jtaOnly = LockManager.builder(JdbcLockProvider.builder(dataSource).reaperPeriod(Duration.ZERO).build()).build();
    }

    @PreDestroy
    void close() {
        managers.values().forEach(LockManager::close);
        jtaOnly.close();
    }

    /**
     * @param strategy the strategy
     * @return the manager with that strategy
     */
    public LockManager get(Strategy strategy) {
        return managers.get(strategy);
    }

    /** @return a manager whose provider has the JTA datasource only, no lease datasource */
    public LockManager jtaOnly() {
        return jtaOnly;
    }
}
