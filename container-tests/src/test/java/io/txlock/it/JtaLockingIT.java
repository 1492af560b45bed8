package io.txlock.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.it.app.CdiOrders;
import io.txlock.it.app.NightlyJob;
import io.txlock.it.app.OrderService;
import io.txlock.it.app.Orders;
import io.txlock.it.app.ShortTransactions;
import io.txlock.it.app.Strategies;
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
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Locks in the caller's JTA transaction inside WildFly, on every strategy: injection into EJBs and CDI beans, release
 * on commit and on rollback, waiting for a commit, transaction timeouts, LEASE locks inside transactions.
 */
@ExtendWith(ArquillianExtension.class)
class JtaLockingIT {

    @Deployment
    static WebArchive deployment() {
        return Deployments.war("jta-locking", OrderService.class.getPackage());
    }

    @Inject
    LockManager locks;

    @Inject
    OrderService ejb;

    @Inject
    CdiOrders cdi;

    @Inject
    Orders orders;

    @Inject
    Strategies strategies;

    @Inject
    ShortTransactions shortTransactions;

    @Inject
    NightlyJob singleton;

    @Test
    void theApplicationsLockManagerIsInjectedIntoEjbsAndCdiBeans() {
        assertThat(locks.instanceId()).isNotBlank();
        assertThat(ejb.managerId()).as("@Stateless").isEqualTo(locks.instanceId());
        assertThat(singleton.managerId()).as("@Singleton").isEqualTo(locks.instanceId());
        assertThat(cdi.managerId()).as("@ApplicationScoped").isEqualTo(locks.instanceId());
        assertThat(singleton.run()).as("@Locked on a singleton EJB").isEqualTo(1);
    }

    @Test
    void anEjbTransactionsCommitReleasesItsLockAndKeepsItsRows() {
        for (Strategy strategy : Strategy.values()) {
            String order = "commit-" + strategy;
            long token = ejb.place(strategy, order);
            assertThat(orders.token(order)).as(strategy.toString()).contains(token);
            assertThat(strategies.get(strategy).inspect("order:" + order)).as(strategy + ": free after commit").isEmpty();
            try (LockHandle next = strategies.get(strategy).acquire("order:" + order, LockOptions.defaults()
                    .withScope(LockScope.LEASE).withWait(Duration.ofSeconds(5)))) {
                assertThat(next.fencingToken()).as(strategy.toString()).isGreaterThan(token);
            }
        }
    }

    @Test
    void aRuntimeExceptionInAnEjbRollsBackTheRowsAndReleasesTheLock() {
        for (Strategy strategy : Strategy.values()) {
            String order = "rollback-" + strategy;
            assertThatThrownBy(() -> ejb.placeAndFail(strategy, order)).isInstanceOf(EJBException.class)
                    .hasRootCauseMessage("payment declined");
            assertThat(orders.token(order)).as(strategy.toString()).isEmpty();
            assertThat(strategies.get(strategy).tryAcquire("order:" + order, LockOptions.defaults()
                    .withScope(LockScope.LEASE).withWait(Duration.ZERO))).as(strategy + ": free after rollback")
                    .hasValueSatisfying(LockHandle::release);
        }
    }

    @Test
    void aCdiBeansTransactionalMethodReleasesOnCommitAndOnRollback() {
        long token = cdi.place("cdi-commit");
        assertThat(orders.token("cdi-commit")).contains(token);
        assertThatThrownBy(() -> cdi.placeAndFail("cdi-rollback")).hasMessage("payment declined");
        assertThat(orders.token("cdi-rollback")).isEmpty();
        for (String order : new String[] {"cdi-commit", "cdi-rollback"}) {
            assertThat(locks.tryAcquire("order:" + order, LockOptions.defaults().withScope(LockScope.LEASE)
                    .withWait(Duration.ZERO))).as(order).hasValueSatisfying(LockHandle::release);
        }
    }

    @Test
    void aSecondTransactionWaitsForTheFirstsCommitAndThenSeesItsRows() throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(2);
        try {
            for (Strategy strategy : Strategy.values()) {
                String order = "wait-" + strategy;
                CountDownLatch locked = new CountDownLatch(1);
                CountDownLatch mayCommit = new CountDownLatch(1);
                CompletableFuture<Long> first = CompletableFuture.supplyAsync(
                        () -> ejb.placeAndWait(strategy, order, locked, mayCommit), callers);
                assertThat(locked.await(30, TimeUnit.SECONDS)).isTrue();
                CompletableFuture<Optional<Long>> second = CompletableFuture.supplyAsync(
                        () -> ejb.lockAndRead(strategy, order, Duration.ofSeconds(30)), callers);
                assertThat(stillWaiting(second)).as(strategy + ": waits for the first transaction").isTrue();
                mayCommit.countDown();
                long token = first.get(30, TimeUnit.SECONDS);
                assertThat(second.get(30, TimeUnit.SECONDS)).as(strategy + ": sees the committed order").contains(token);
            }
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void aTransactionThatTimesOutReleasesItsLocks() throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(1);
        try {
            for (Strategy strategy : Strategy.values()) {
                String name = "timeout-" + strategy;
                CountDownLatch locked = new CountDownLatch(1);
                CountDownLatch release = new CountDownLatch(1);
                CompletableFuture<String> holder = CompletableFuture.supplyAsync(() -> {
                    try {
                        return shortTransactions.lockAndOutliveTheTransaction(strategies.get(strategy), name, locked, release);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, callers);
                assertThat(locked.await(30, TimeUnit.SECONDS)).isTrue();
                try {
                    assertThat(ejb.tryLock(strategy, name, Duration.ofSeconds(30)))
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
    void aLeaseLockInsideATransactionUsesTheNonJtaDataSourceAndOutlivesARollback() throws Exception {
        ExecutorService otherThread = Executors.newSingleThreadExecutor(); // the holder's own thread would re-enter
        try {
            for (Strategy strategy : Strategy.values()) {
                String name = "lease-" + strategy;
                LockHandle[] held = new LockHandle[1];
                assertThatThrownBy(() -> ejb.leaseLockAndFail(strategy, name, held)).isInstanceOf(EJBException.class);
                assertThat(held[0].isValid()).as(strategy.toString()).isTrue();
                assertThat(otherThread.submit(() -> ejb.tryLock(strategy, name, Duration.ZERO)).get(30, TimeUnit.SECONDS))
                        .as(strategy + ": still held after the rollback").isFalse();
                ejb.release(held[0]);
                assertThat(otherThread.submit(() -> ejb.tryLock(strategy, name, Duration.ofSeconds(5))).get(30, TimeUnit.SECONDS))
                        .as(strategy + ": free after release").isTrue();
            }
        } finally {
            otherThread.shutdownNow();
        }
    }

    @Test
    void aLeaseLockInsideATransactionWithOnlyTheJtaDataSourceIsAClearError() {
        assertThatThrownBy(() -> ejb.leaseLockWithJtaDataSourceOnly("jta-only"))
                .isInstanceOf(EJBException.class)
                .rootCause().isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("enlisted in the active transaction")
                .hasMessageContaining("leaseDataSource")
                .hasMessageContaining("transactional = false");
    }

    @Test
    void transactionScopeOutsideATransactionIsAClearError() {
        assertThatThrownBy(() -> locks.acquire("no-transaction", LockOptions.defaults().withScope(LockScope.TRANSACTION)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("needs an active transaction");
        try (LockHandle auto = locks.acquire("no-transaction")) {
            assertThat(auto.scope()).as("AUTO outside a transaction").isEqualTo(LockScope.LEASE);
        }
    }

    /** @return true if {@code future} has not completed within a short while */
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
