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
 * on commit and on rollback, waiting for a commit or a rollback, giving up, transaction timeouts, LEASE locks inside
 * transactions. Holder and contender are two nodes ({@link Strategies#node}): two managers that meet only in the
 * database, so what is proved is the database's work inside WildFly's JTA transactions, not the core's in-JVM queue.
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
        for (Strategy strategy : strategies.all()) {
            LockManager a = strategies.node(0, strategy);
            LockManager b = strategies.node(1, strategy);
            String order = "commit-" + strategy;
            long token = ejb.place(a, order);
            assertThat(orders.token(order)).as(strategy.toString()).contains(token);
            assertThat(a.inspect("order:" + order)).as(strategy + ": free after commit").isEmpty();
            try (LockHandle next = b.acquire("order:" + order, LockOptions.defaults()
                    .withScope(LockScope.LEASE).withWait(Duration.ofSeconds(5)))) {
                assertThat(next.fencingToken()).as(strategy + ": the other node's next token").isGreaterThan(token);
            }
        }
    }

    @Test
    void aRuntimeExceptionInAnEjbRollsBackTheRowsAndReleasesTheLock() {
        for (Strategy strategy : strategies.all()) {
            String order = "rollback-" + strategy;
            assertThatThrownBy(() -> ejb.placeAndFail(strategies.node(0, strategy), order)).isInstanceOf(EJBException.class)
                    .hasRootCauseMessage("payment declined");
            assertThat(orders.token(order)).as(strategy.toString()).isEmpty();
            assertThat(strategies.node(1, strategy).tryAcquire("order:" + order, LockOptions.defaults()
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
        LockManager otherNode = strategies.node(1, Strategy.SELECT_FOR_UPDATE); // the application's manager's strategy
        for (String order : new String[] {"cdi-commit", "cdi-rollback"}) {
            assertThat(otherNode.tryAcquire("order:" + order, LockOptions.defaults().withScope(LockScope.LEASE)
                    .withWait(Duration.ZERO))).as(order).hasValueSatisfying(LockHandle::release);
        }
    }

    @Test
    void aTransactionScopedLockIsBoundToItsJtaTransaction() throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(1);
        try {
            for (Strategy strategy : strategies.all()) {
                LockManager a = strategies.node(0, strategy);
                LockManager b = strategies.node(1, strategy);
                String order = "bound-" + strategy;
                CountDownLatch locked = new CountDownLatch(1);
                CountDownLatch mayCommit = new CountDownLatch(1);
                CompletableFuture<Long> first = CompletableFuture.supplyAsync(
                        () -> ejb.placeAndWait(a, order, locked, mayCommit), callers);
                awaitHolding(locked, first);
                try {
                    assertThat(b.tryAcquire("order:" + order, LockOptions.defaults().withScope(LockScope.LEASE)
                            .withWait(Duration.ZERO))).as(strategy + ": held while A's transaction runs").isEmpty();
                    assertThat(ejb.tryLock(b, "order:" + order, Duration.ZERO))
                            .as(strategy + ": held for another transaction while A's transaction runs").isFalse();
                    assertThat(orders.token(order)).as(strategy + ": A's row is not committed yet").isEmpty();
                } finally {
                    mayCommit.countDown();
                }
                long token = first.get(30, TimeUnit.SECONDS);
                OrderService.Read next = ejb.lockAndRead(b, order, Duration.ofSeconds(5));
                assertThat(next.lockToken()).as(strategy + ": B's token after A's commit").isGreaterThan(token);
                assertThat(next.orderToken()).as(strategy + ": B sees A's row").contains(token);
            }
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void aTransactionOnAnotherNodeWaitsForTheFirstsCommitAndThenSeesItsRows() throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(2);
        try {
            for (Strategy strategy : strategies.all()) {
                LockManager a = strategies.node(0, strategy); // on this thread, see Strategies
                LockManager b = strategies.node(1, strategy);
                String order = "wait-" + strategy;
                CountDownLatch locked = new CountDownLatch(1);
                CountDownLatch mayCommit = new CountDownLatch(1);
                CompletableFuture<Long> first = CompletableFuture.supplyAsync(
                        () -> ejb.placeAndWait(a, order, locked, mayCommit), callers);
                awaitHolding(locked, first);
                CompletableFuture<OrderService.Read> second = CompletableFuture.supplyAsync(
                        () -> ejb.lockAndRead(b, order, Duration.ofSeconds(30)), callers);
                assertThat(stillWaiting(second)).as(strategy + ": waits for the first transaction").isTrue();
                mayCommit.countDown();
                long token = first.get(30, TimeUnit.SECONDS);
                OrderService.Read read = second.get(30, TimeUnit.SECONDS);
                assertThat(read.orderToken()).as(strategy + ": sees the committed order").contains(token);
                assertThat(read.lockToken()).as(strategy.toString()).isGreaterThan(token);
            }
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void aTransactionOnAnotherNodeWaitingForARollbackProceeds() throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(2);
        try {
            for (Strategy strategy : strategies.all()) {
                LockManager a = strategies.node(0, strategy); // on this thread, see Strategies
                LockManager b = strategies.node(1, strategy);
                String order = "wait-rollback-" + strategy;
                CountDownLatch locked = new CountDownLatch(1);
                CountDownLatch mayFail = new CountDownLatch(1);
                CompletableFuture<Void> first = CompletableFuture.runAsync(
                        () -> ejb.placeWaitAndFail(a, order, locked, mayFail), callers);
                awaitHolding(locked, first);
                CompletableFuture<OrderService.Read> second = CompletableFuture.supplyAsync(
                        () -> ejb.lockAndRead(b, order, Duration.ofSeconds(30)), callers);
                assertThat(stillWaiting(second)).as(strategy + ": waits for the first transaction").isTrue();
                mayFail.countDown();
                assertThatThrownBy(() -> first.get(30, TimeUnit.SECONDS)).hasRootCauseMessage("payment declined");
                OrderService.Read read = second.get(30, TimeUnit.SECONDS);
                assertThat(read.orderToken()).as(strategy + ": the first order was rolled back").isEmpty();
            }
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void aTransactionOnAnotherNodeGivesUpAfterItsWaitAndItsOwnWorkCommits() throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(1);
        Duration wait = Duration.ofSeconds(1);
        try {
            for (Strategy strategy : strategies.all()) {
                LockManager a = strategies.node(0, strategy); // on this thread, see Strategies
                LockManager b = strategies.node(1, strategy);
                String order = "give-up-" + strategy;
                CountDownLatch locked = new CountDownLatch(1);
                CountDownLatch mayCommit = new CountDownLatch(1);
                CompletableFuture<Long> first = CompletableFuture.supplyAsync(
                        () -> ejb.placeAndWait(a, order, locked, mayCommit), callers);
                awaitHolding(locked, first);
                try {
                    long start = System.nanoTime();
                    boolean granted = ejb.storeAroundTryLock(b, "order:" + order, wait, order + "-b");
                    Duration waited = Duration.ofNanos(System.nanoTime() - start);
                    assertThat(granted).as(strategy + ": not granted while A's transaction holds the lock").isFalse();
                    assertThat(waited).as(strategy + ": waited").isGreaterThanOrEqualTo(wait.minusMillis(100))
                            .as(strategy + ": gave up at its wait, not at some server timeout").isLessThan(wait.plusSeconds(20));
                } finally {
                    mayCommit.countDown();
                }
                assertThat(orders.token(order + "-b/before")).as(strategy + ": B's work before the attempt").contains(1L);
                assertThat(orders.token(order + "-b/after")).as(strategy + ": B's work after the attempt").contains(2L);
                long token = first.get(30, TimeUnit.SECONDS);
                assertThat(orders.token(order)).as(strategy + ": A commits").contains(token);
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
                LockManager a = strategies.node(0, strategy); // on this thread, see Strategies
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
                    assertThat(ejb.tryLock(b, name, Duration.ofSeconds(30)))
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
    void aLeaseLockInsideATransactionUsesTheNonJtaDataSourceAndOutlivesARollback() {
        for (Strategy strategy : strategies.all()) {
            LockManager a = strategies.node(0, strategy);
            LockManager b = strategies.node(1, strategy);
            String name = "lease-" + strategy;
            LockHandle[] held = new LockHandle[1];
            assertThatThrownBy(() -> ejb.leaseLockAndFail(a, name, held)).isInstanceOf(EJBException.class);
            assertThat(held[0].isValid()).as(strategy.toString()).isTrue();
            assertThat(ejb.tryLock(b, name, Duration.ZERO)).as(strategy + ": still held after the rollback").isFalse();
            ejb.release(held[0]);
            assertThat(ejb.tryLock(b, name, Duration.ofSeconds(5))).as(strategy + ": free after release").isTrue();
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
    void aManagerBuiltOutsideTheContainersContextFindsTheTransactionWhenItLocks() throws Exception {
        for (Strategy strategy : strategies.all()) {
            try (LockManager builtElsewhere = strategies.buildOnAThreadWithoutContext(strategy)) {
                long token = ejb.place(builtElsewhere, "built-elsewhere-" + strategy); // refuses a lock not in TRANSACTION scope
                assertThat(orders.token("built-elsewhere-" + strategy)).as(strategy.toString()).contains(token);
            }
        }
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

    /** Waits until {@code holder} says it holds its lock; if it failed instead, fails with the holder's error. */
    private static void awaitHolding(CountDownLatch locked, CompletableFuture<?> holder) throws Exception {
        holder.whenComplete((result, failure) -> locked.countDown()); // it ends only after saying so, unless it failed
        assertThat(locked.await(30, TimeUnit.SECONDS)).as("the holder holds its lock within 30 s").isTrue();
        if (holder.isCompletedExceptionally()) {
            holder.get();
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
