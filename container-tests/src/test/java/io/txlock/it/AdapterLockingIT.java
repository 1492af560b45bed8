package io.txlock.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.it.adapterapp.AdapterOrders;
import io.txlock.it.adapterapp.AdapterSchema;
import io.txlock.it.adapterapp.CdiAdapterOrders;
import io.txlock.it.adapterapp.Node;
import io.txlock.it.adapterapp.OrderRows;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The resource adapter in WildFly, deployed as users deploy it (the .rar in an EAR next to the application's WAR): its
 * connection factories injected with {@code @Resource(lookup = ...)} into an EJB and a CDI bean; locks released when the
 * transaction commits and when it rolls back; a transaction on another node waits for the first's commit; a lost lock
 * rolls the business transaction back with an exception naming the lock; the manager's work on the container's threads;
 * the order-idempotency scenario; Redis.
 */
@ExtendWith(ArquillianExtension.class)
class AdapterLockingIT {

    @Deployment
    static EnterpriseArchive deployment() {
        return AdapterDeployments.ear("adapter-locking", ContainerDatabase.create(), AdapterLockingIT.class,
                AdapterOrders.class, AdapterOrders.Read.class, AdapterOrders.Threads.class, AdapterOrders.PaymentDeclined.class,
                AdapterSchema.class, CdiAdapterOrders.class, Node.class, OrderRows.class);
    }

    @Inject
    AdapterOrders ejb;

    @Inject
    CdiAdapterOrders cdi;

    @Inject
    OrderRows rows;

    @Test
    void theConnectionFactoryIsInjectedIntoAnEjbAndACdiBeanAndEachFactoryIsOneLockManager() throws Exception {
        String a = ejb.managerId(Node.A);
        assertThat(a).isNotBlank();
        assertThat(ejb.managerId(Node.A)).as("pooled connections share the factory's manager").isEqualTo(a);
        assertThat(cdi.managerId()).as("@ApplicationScoped").isEqualTo(a);
        assertThat(ejb.managerId(Node.B)).as("another factory, another node").isNotEqualTo(a);
    }

    @Test
    void aCommitReleasesTheLockAndKeepsTheRowsOnEveryBackend() {
        for (Node node : Node.values()) {
            String order = "commit-" + node;
            long token = ejb.place(node, order);
            assertThat(rows.token(order)).as(node.toString()).contains(token);
            assertThat(ejb.isFree(node, "order:" + order)).as(node + ": free after commit").isTrue();
        }
        AdapterOrders.Read next = ejb.lockAndRead(Node.B, "commit-A", Duration.ofSeconds(5));
        assertThat(next.lockToken()).as("the other node's next token").isGreaterThan(rows.token("commit-A").orElseThrow());
    }

    @Test
    void aRollbackReleasesTheLockAndDropsTheRowsOnEveryBackend() {
        for (Node node : Node.values()) {
            String order = "rollback-" + node;
            assertThatThrownBy(() -> ejb.placeAndFail(node, order)).hasRootCauseMessage("payment declined");
            assertThat(rows.token(order)).as(node.toString()).isEmpty();
            assertThat(ejb.isFree(node, "order:" + order)).as(node + ": free after rollback").isTrue();
        }
    }

    @Test
    void aCdiBeansTransactionalMethodReleasesOnCommitAndOnRollback() throws Exception {
        long token = cdi.place("cdi-commit");
        assertThat(rows.token("cdi-commit")).contains(token);
        assertThatThrownBy(() -> cdi.placeAndFail("cdi-rollback")).hasMessage("payment declined");
        assertThat(rows.token("cdi-rollback")).isEmpty();
        assertThat(ejb.isFree(Node.B, "order:cdi-commit")).isTrue();
        assertThat(ejb.isFree(Node.B, "order:cdi-rollback")).isTrue();
    }

    @Test
    void aTransactionOnAnotherNodeWaitsForTheFirstsCommitAndThenSeesItsRows() throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(2);
        try {
            CountDownLatch locked = new CountDownLatch(1);
            CountDownLatch mayCommit = new CountDownLatch(1);
            CompletableFuture<Long> first = CompletableFuture.supplyAsync(
                    () -> ejb.placeAndWait(Node.A, "waited", locked, mayCommit), callers);
            first.whenComplete((result, failure) -> locked.countDown());
            assertThat(locked.await(30, TimeUnit.SECONDS)).as("the first transaction holds its lock").isTrue();
            CompletableFuture<AdapterOrders.Read> second = CompletableFuture.supplyAsync(
                    () -> ejb.lockAndRead(Node.B, "waited", Duration.ofSeconds(30)), callers);
            assertThat(stillWaiting(second)).as("the second transaction waits for the first").isTrue();
            mayCommit.countDown();
            long token = first.get(30, TimeUnit.SECONDS);
            AdapterOrders.Read read = second.get(30, TimeUnit.SECONDS);
            assertThat(read.orderToken()).as("sees the committed order").contains(token);
            assertThat(read.lockToken()).isGreaterThan(token);
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void aTransactionWhoseLockWasLostRollsBackWithAnExceptionNamingTheLockOnEveryBackend() {
        for (Node node : new Node[] {Node.A, Node.REDIS}) {
            String order = "lost-" + node + "-" + java.util.UUID.randomUUID();
            assertThatThrownBy(() -> ejb.placeAndLoseTheLock(node, order)).as(node.toString())
                    .hasStackTraceContaining("lock 'order:" + order + "' was lost before the transaction completed");
            assertThat(rows.token(order)).as(node + ": the order is not stored").isEmpty();
            // a lost lock is released in the background: a waiter gets it
            assertThat(ejb.isFreeWithin(node, "order:" + order, Duration.ofSeconds(30))).as(node + ": free after the loss")
                    .isTrue();
        }
    }

    @Test
    void renewalsAsyncWaitsAndListenersRunOnTheContainersThreads() throws Exception {
        AdapterOrders.Threads threads = ejb.threads("threads-");
        System.out.println("txlock adapter threads: " + threads);
        assertThat(threads.renewedUntilAfter()).as("renewed in the background").isGreaterThan(threads.renewedUntilBefore());
        assertThat(threads.txlockThreads()).as("threads of txlock's own while locks are held, renewed and waited for")
                .isEmpty();
        // WildFly's JCA subsystem names the threads of its default WorkManager "default-threads - n"
        assertThat(List.of(threads.asyncGrant(), threads.lostListener())).allSatisfy(thread -> assertThat(thread)
                .isNotEqualTo(threads.caller()).startsWith("default-threads"));
    }

    /**
     * The seeds' case through the adapter: the duplicate submissions of an order start together, on both nodes, and
     * some fail after storing and roll back. Every order is stored once; no submission fails for another reason.
     */
    @Test
    void duplicateSubmissionsOnTwoNodesStoreEachOrderOnce() throws Exception {
        int copies = 4;
        int orders = 20;
        Map<String, AtomicInteger> stored = new ConcurrentHashMap<>();
        AtomicInteger declined = new AtomicInteger();
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        ExecutorService clients = Executors.newFixedThreadPool(2 * copies);
        try {
            List<Future<?>> results = new ArrayList<>();
            for (int order = 0; order < orders; order++) {
                String orderNo = "dup-" + order;
                boolean declines = order % 2 == 0;
                CyclicBarrier start = new CyclicBarrier(copies);
                for (int copy = 0; copy < copies; copy++) {
                    int c = copy;
                    results.add(clients.submit(() -> {
                        start.await(60, TimeUnit.SECONDS);
                        try {
                            if (ejb.submit(c % 2 == 0 ? Node.A : Node.B, orderNo, declines && c < copies - 1)) {
                                stored.computeIfAbsent(orderNo, k -> new AtomicInteger()).incrementAndGet();
                            }
                        } catch (AdapterOrders.PaymentDeclined expected) {
                            declined.incrementAndGet();
                        } catch (RuntimeException | Error e) {
                            failures.add(e);
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> result : results) {
                result.get(120, TimeUnit.SECONDS);
            }
        } finally {
            clients.shutdownNow();
        }
        assertThat(failures).as("submissions that failed for another reason than a declined payment").isEmpty();
        for (int order = 0; order < orders; order++) {
            String orderNo = "dup-" + order;
            assertThat(stored.get(orderNo)).as("submissions that stored " + orderNo).hasValue(1);
            assertThat(rows.count(orderNo)).as("rows of " + orderNo).isEqualTo(1);
        }
        assertThat(declined).as("submissions that stored, failed and rolled back").hasPositiveValue();
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
