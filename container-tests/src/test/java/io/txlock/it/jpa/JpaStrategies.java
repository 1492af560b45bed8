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
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * JPA-provider managers per strategy and node (each node its own manager, as separate JVMs would have), configured
 * as docs/jpa.md shows for Jakarta EE: TRANSACTION-scoped locks through the application's container-managed (JTA)
 * entity manager, LEASE locks through a RESOURCE_LOCAL unit on a non-JTA datasource. A manager looks the transaction
 * registry up lazily (see {@code JtaTransactionSupport}): when a lock is first taken, on the taking thread, not when
 * the manager is built, and it keeps the registry once found. So a node may be built on any thread, and it still joins
 * the JTA transaction of a container thread (a test method, an EJB call) that locks through it. A lock taken under
 * AUTO on a thread with no JTA transaction (a task of a plain executor) is a LEASE lock, as it is anywhere outside a
 * transaction; a thread that finds no registry looks again at most once a second, until one is found.
 */
@ApplicationScoped
public class JpaStrategies {

    @PersistenceContext(unitName = "orders")
    EntityManager entityManager;

    @PersistenceUnit(unitName = "txlock-lease")
    EntityManagerFactory lease;

    private final Map<Strategy, List<LockManager>> nodes = new EnumMap<>(Strategy.class);

    /** @return the strategies of the JPA provider: every one but ADVISORY, which only the JDBC provider has */
    public List<Strategy> all() {
        return java.util.Arrays.stream(Strategy.values()).filter(s -> s != Strategy.ADVISORY).toList();
    }

    /**
     * @param strategy the strategy
     * @return the first node's manager with that strategy
     */
    public LockManager get(Strategy strategy) {
        return node(0, strategy);
    }

    /**
     * @param node which node, from 0: each has its own manager, as separate JVMs would have
     * @param strategy the strategy
     * @return that node's manager with that strategy
     */
    public synchronized LockManager node(int node, Strategy strategy) {
        List<LockManager> managers = nodes.computeIfAbsent(strategy, s -> new ArrayList<>());
        while (managers.size() <= node) {
            managers.add(LockManager.builder(JpaLockProvider.builder(lease).entityManager(() -> entityManager)
                    .strategy(strategy).reaperPeriod(Duration.ZERO).build()).build());
        }
        return managers.get(node);
    }

    @PreDestroy
    synchronized void close() {
        nodes.values().forEach(managers -> managers.forEach(LockManager::close));
    }
}
