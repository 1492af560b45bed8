package io.txlock.it.jpa;

import io.txlock.LockManager;
import io.txlock.Strategy;
import io.txlock.jpa.JpaLockProvider;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.PersistenceUnit;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * One JPA-provider manager per strategy, configured as docs/jpa.md shows for Jakarta EE: TRANSACTION-scoped
 * locks through the application's container-managed (JTA) entity manager, LEASE locks through a RESOURCE_LOCAL
 * unit on a non-JTA datasource.
 */
@ApplicationScoped
public class JpaStrategies {

    @PersistenceContext(unitName = "orders")
    EntityManager entityManager;

    @PersistenceUnit(unitName = "txlock-lease")
    EntityManagerFactory lease;

    private final Map<Strategy, LockManager> managers = new EnumMap<>(Strategy.class);

    /**
     * @param strategy the strategy
     * @return the manager with that strategy
     */
    public synchronized LockManager get(Strategy strategy) {
        return managers.computeIfAbsent(strategy, s -> LockManager.builder(JpaLockProvider.builder(lease)
                .entityManager(() -> entityManager).strategy(s).reaperPeriod(Duration.ZERO).build()).build());
    }

    @PreDestroy
    synchronized void close() {
        managers.values().forEach(LockManager::close);
    }
}
