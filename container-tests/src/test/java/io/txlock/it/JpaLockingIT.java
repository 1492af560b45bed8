package io.txlock.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.it.app.Schema;
import io.txlock.it.app.ShortTransactions;
import io.txlock.it.jpa.JpaOrders;
import io.txlock.it.jpa.JpaStrategies;
import jakarta.ejb.EJBException;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The JPA provider in the container, on every strategy: locks through the application's JTA entity manager that
 * commit and roll back with its entities, a waiter that sees the first transaction's entities, a timed-out
 * transaction that frees its locks while its thread still runs, LEASE locks through a RESOURCE_LOCAL unit that
 * outlive a rollback. Holder and contender are two nodes ({@link JpaStrategies#node}) that meet only in the database.
 */
@ExtendWith(ArquillianExtension.class)
class JpaLockingIT {

    @Deployment
    static WebArchive deployment() {
        return Deployments.war("jpa-locking", JpaOrders.class.getPackage())
                .addClasses(Schema.class, ShortTransactions.class)
                .addAsResource(new StringAsset(PERSISTENCE_XML), "META-INF/persistence.xml");
    }

    /** The application's JTA unit, and a RESOURCE_LOCAL unit for LEASE locks, as docs/jpa.md shows. */
    private static final String PERSISTENCE_XML = """
            <persistence xmlns="https://jakarta.ee/xml/ns/persistence" version="3.0">
              <persistence-unit name="orders" transaction-type="JTA">
                <jta-data-source>java:app/jdbc/txlock</jta-data-source>
                <class>io.txlock.entity.MethodLock</class>
                <class>io.txlock.it.jpa.PlacedOrder</class>
                <exclude-unlisted-classes>true</exclude-unlisted-classes>
                <properties>
                  <property name="hibernate.hbm2ddl.auto" value="none"/>
                </properties>
              </persistence-unit>
              <persistence-unit name="txlock-lease" transaction-type="RESOURCE_LOCAL">
                <non-jta-data-source>java:app/jdbc/txlock-nonjta</non-jta-data-source>
                <class>io.txlock.entity.MethodLock</class>
                <exclude-unlisted-classes>true</exclude-unlisted-classes>
                <properties>
                  <property name="hibernate.hbm2ddl.auto" value="none"/>
                </properties>
              </persistence-unit>
            </persistence>
            """;

    @Inject
    JpaOrders orders;

    @Inject
    JpaStrategies strategies;

    @Inject
    ShortTransactions shortTransactions;

    @Test
    void anEjbTransactionsCommitReleasesItsLockAndKeepsItsEntities() {
        for (Strategy strategy : strategies.all()) {
            String order = "commit-" + strategy;
            long token = orders.place(strategies.node(0, strategy), order);
            assertThat(orders.tokens(order)).as(strategy.toString()).containsExactly(token);
            try (LockHandle next = strategies.node(1, strategy).acquire("order:" + order, LockOptions.defaults()
                    .withScope(LockScope.LEASE).withWait(Duration.ofSeconds(5)))) {
                assertThat(next.fencingToken()).as(strategy.toString()).isGreaterThan(token);
            }
        }
    }

    @Test
    void aRuntimeExceptionInAnEjbRollsBackTheEntitiesAndReleasesTheLock() {
        for (Strategy strategy : strategies.all()) {
            String order = "rollback-" + strategy;
            assertThatThrownBy(() -> orders.placeAndFail(strategies.node(0, strategy), order)).isInstanceOf(EJBException.class)
                    .hasRootCauseMessage("payment declined");
            assertThat(orders.tokens(order)).as(strategy.toString()).isEmpty();
            assertThat(strategies.node(1, strategy).tryAcquire("order:" + order, LockOptions.defaults()
                    .withScope(LockScope.LEASE).withWait(Duration.ZERO))).as(strategy + ": free after rollback")
                    .hasValueSatisfying(LockHandle::release);
        }
    }

    @Test
    void aSecondTransactionWaitsForTheFirstsCommitAndThenSeesItsEntities() throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(2);
        try {
            for (Strategy strategy : strategies.all()) {
                LockManager a = strategies.node(0, strategy); // on this thread, see JpaStrategies
                LockManager b = strategies.node(1, strategy);
                String order = "wait-" + strategy;
                CountDownLatch locked = new CountDownLatch(1);
                CountDownLatch mayCommit = new CountDownLatch(1);
                CompletableFuture<Long> first = CompletableFuture.supplyAsync(
                        () -> orders.placeAndWait(a, order, locked, mayCommit), callers);
                awaitHolding(locked, first);
                CompletableFuture<Optional<Long>> second = CompletableFuture.supplyAsync(
                        () -> orders.lockAndRead(b, order, Duration.ofSeconds(30)), callers);
                assertThat(stillWaiting(second)).as(strategy + ": waits for the first transaction").isTrue();
                mayCommit.countDown();
                long token = first.get(30, TimeUnit.SECONDS);
                assertThat(second.get(30, TimeUnit.SECONDS)).as(strategy + ": sees the committed entity").contains(token);
            }
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void aTransactionThatTimesOutReleasesItsLocks() throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(1);
        try {
            for (Strategy strategy : strategies.all()) {
                LockManager a = strategies.node(0, strategy); // on this thread, see JpaStrategies
                LockManager b = strategies.node(1, strategy);
                String name = "timeout-" + strategy;
                CountDownLatch locked = new CountDownLatch(1);
                CountDownLatch release = new CountDownLatch(1);
                CompletableFuture<String> holder = CompletableFuture.supplyAsync(() -> {
                    try {
                        return shortTransactions.lockAndOutliveTheTransaction(a, name, locked, release);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, callers);
                awaitHolding(locked, holder);
                try {
                    assertThat(orders.tryLock(b, name, Duration.ofSeconds(30)))
                            .as(strategy + ": granted once the holder's transaction timed out, while its thread still runs")
                            .isTrue();
                    assertThat(holder).isNotDone();
                } finally {
                    release.countDown();
                }
                assertThat(holder.get(30, TimeUnit.SECONDS)).isEqualTo("rolled back");
            }
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void aLeaseLockInsideATransactionUsesTheResourceLocalUnitAndOutlivesARollback() {
        for (Strategy strategy : strategies.all()) {
            LockManager a = strategies.node(0, strategy);
            LockManager b = strategies.node(1, strategy);
            String name = "lease-" + strategy;
            LockHandle[] held = new LockHandle[1];
            assertThatThrownBy(() -> orders.leaseLockAndFail(a, name, held)).isInstanceOf(EJBException.class);
            assertThat(held[0].isValid()).as(strategy.toString()).isTrue();
            assertThat(orders.tryLock(b, name, Duration.ZERO)).as(strategy + ": still held after the rollback").isFalse();
            orders.release(held[0]);
            assertThat(orders.tryLock(b, name, Duration.ofSeconds(5))).as(strategy + ": free after release").isTrue();
        }
    }

    /** Waits until {@code holder} says it holds its lock; if it failed instead, fails with the holder's error. */
    private static void awaitHolding(CountDownLatch locked, CompletableFuture<?> holder) throws Exception {
        holder.whenComplete((result, failure) -> locked.countDown()); // it ends only after saying so, unless it failed
        assertThat(locked.await(30, TimeUnit.SECONDS)).as("the holder holds its lock within 30 s").isTrue();
        if (holder.isCompletedExceptionally()) {
            holder.get();
        }
    }

    private static boolean stillWaiting(CompletableFuture<?> future) throws InterruptedException {
        try {
            future.get(500, TimeUnit.MILLISECONDS);
            return false;
        } catch (java.util.concurrent.TimeoutException expected) {
            return true;
        } catch (java.util.concurrent.ExecutionException e) {
            throw new AssertionError("failed instead of waiting", e.getCause());
        }
    }
}
