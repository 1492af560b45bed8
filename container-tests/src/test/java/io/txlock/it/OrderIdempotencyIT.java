package io.txlock.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.LockManager;
import io.txlock.Strategy;
import io.txlock.it.app.OrderService;
import io.txlock.it.app.Orders;
import io.txlock.it.app.Strategies;
import io.txlock.it.app.Submissions;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The seeds' case in the container: the duplicate submissions of an order start together (a barrier per order), and
 * some fail after storing and roll back. Every order is stored once; no submission fails for another reason (no
 * deadlock, no lock wait timeout). With idempotency claims, and with a lock on the order number taken by
 * {@code @Locked} and by other nodes, on MariaDB at REPEATABLE READ.
 */
@ExtendWith(ArquillianExtension.class)
class OrderIdempotencyIT {

    /** Submissions per order, started together. */
    private static final int COPIES = 4;
    /** Two orders' submissions at a time. */
    private static final int CLIENTS = 2 * COPIES;

    @Deployment
    static WebArchive deployment() {
        return Deployments.war("order-idempotency", OrderService.class.getPackage());
    }

    @Inject
    Submissions submissions;

    @Inject
    Orders orders;

    @Inject
    Strategies strategies;

    @BeforeEach
    void mariaDbRunsAtItsDefaultIsolation() {
        if (orders.product().equals("MariaDB")) {
            assertThat(orders.mariaDbIsolation()).as("MariaDB's default, where SELECT ... FOR UPDATE takes gap locks")
                    .startsWith("REPEATABLE-READ");
        }
    }

    @Test
    void claimsStoreEachOrderOnceUnderConcurrentDuplicatesAndRollbacks() throws Exception {
        Map<String, AtomicInteger> stored = new ConcurrentHashMap<>();
        AtomicInteger declined = new AtomicInteger();
        submitTogether("claim-", 30, (orderNo, copy) -> {
            try {
                if (submissions.submit(orderNo, declines(orderNo, copy))) {
                    count(stored, orderNo);
                }
            } catch (Submissions.PaymentDeclined expected) {
                declined.incrementAndGet(); // rolled back: the order number is free for a later duplicate
            }
        });
        assertStoredOnce("claim-", 30, stored);
        assertThat(declined).as("submissions that stored, failed and rolled back").hasPositiveValue();
    }

    /**
     * One submission of each order through {@code @Locked} (the application's manager), the others on other nodes,
     * all starting at once on a lock name nobody used before, so that they meet in the database.
     */
    @Test
    void lockedSubmissionsOnSeveralNodesStoreEachOrderOnceUnderConcurrentDuplicatesAndRollbacks() throws Exception {
        List<LockManager> otherNodes = new ArrayList<>();
        for (int node = 0; node < COPIES - 1; node++) {
            otherNodes.add(strategies.node(node, Strategy.SELECT_FOR_UPDATE)); // the application's manager's strategy
        }
        Map<String, AtomicInteger> stored = new ConcurrentHashMap<>();
        AtomicInteger declined = new AtomicInteger();
        submitTogether("locked-", 20, (orderNo, copy) -> {
            try {
                boolean storedNow = copy == 0 ? submissions.submitUnderLock(orderNo, declines(orderNo, copy))
                        : submissions.submitUnderLock(otherNodes.get(copy - 1), orderNo, declines(orderNo, copy));
                if (storedNow) {
                    count(stored, orderNo);
                }
            } catch (Submissions.PaymentDeclined expected) {
                declined.incrementAndGet();
            }
        });
        assertStoredOnce("locked-", 20, stored);
        assertThat(declined).as("first holders that stored, failed and rolled back while others waited").hasPositiveValue();
    }

    /**
     * Every other order: every copy but the last is declined after storing, so that the first to store usually
     * rolls back while its duplicates wait; the last copy is never declined, so the order is stored in the end.
     */
    private static boolean declines(String orderNo, int copy) {
        return Integer.parseInt(orderNo.substring(orderNo.indexOf('-') + 1)) % 2 == 0 && copy < COPIES - 1;
    }

    private void assertStoredOnce(String prefix, int count, Map<String, AtomicInteger> stored) {
        for (int order = 0; order < count; order++) {
            String orderNo = prefix + order;
            assertThat(stored.get(orderNo)).as("submissions that stored " + orderNo).hasValue(1);
            assertThat(orders.count(orderNo)).as("rows of " + orderNo).isEqualTo(1);
        }
    }

    private static void count(Map<String, AtomicInteger> counts, String orderNo) {
        counts.computeIfAbsent(orderNo, k -> new AtomicInteger()).incrementAndGet();
    }

    /** One submission: order number and copy (0 to {@link #COPIES} - 1). */
    private interface Submission {
        void submit(String orderNo, int copy);
    }

    /**
     * Submits {@link #COPIES} copies of each order, the copies of one order released together by a barrier. An
     * order's copies are queued one after the other, and the pool has at least {@link #COPIES} threads, so every
     * barrier fills. Any failure the submission lets through (a deadlock, a lock wait timeout) fails the test.
     */
    private static void submitTogether(String prefix, int orders, Submission submission) throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        try {
            List<Future<?>> results = new ArrayList<>();
            for (int order = 0; order < orders; order++) {
                String orderNo = prefix + order;
                CyclicBarrier start = new CyclicBarrier(COPIES);
                for (int copy = 0; copy < COPIES; copy++) {
                    int c = copy;
                    results.add(clients.submit(() -> {
                        start.await(60, TimeUnit.SECONDS);
                        try {
                            submission.submit(orderNo, c);
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
    }
}
