package io.txlock.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.it.app.OrderService;
import io.txlock.it.app.Orders;
import io.txlock.it.app.Submissions;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The seeds' case in the container: many concurrent duplicate submissions of the same orders, some of which fail
 * after storing and roll back. Every order is stored once; no submission fails for another reason (no deadlock,
 * no lock wait timeout). With idempotency claims, and with {@code @Locked} on the order number.
 */
@ExtendWith(ArquillianExtension.class)
class OrderIdempotencyIT {

    private static final int CLIENTS = 8;

    @Deployment
    static WebArchive deployment() {
        return Deployments.war("order-idempotency", OrderService.class.getPackage());
    }

    @Inject
    Submissions submissions;

    @Inject
    Orders orders;

    @Test
    void claimsStoreEachOrderOnceUnderConcurrentDuplicatesAndFailures() throws Exception {
        if (orders.product().equals("MariaDB")) {
            assertThat(orders.mariaDbIsolation()).as("MariaDB's default, where SELECT ... FOR UPDATE takes gap locks")
                    .startsWith("REPEATABLE-READ");
        }
        Map<String, AtomicInteger> stored = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> refused = new ConcurrentHashMap<>();
        run(submissions(30, 4), orderNo -> {
            boolean declined = ThreadLocalRandom.current().nextInt(4) == 0;
            try {
                count(submissions.submit(orderNo, declined) ? stored : refused, orderNo);
            } catch (Submissions.PaymentDeclined expected) {
                // rolled back: the order number is free for a later duplicate
            }
        });
        for (int order = 0; order < 30; order++) {
            String orderNo = "claim-" + order;
            int commits = stored.getOrDefault(orderNo, new AtomicInteger()).get();
            assertThat(commits).as("stored submissions of " + orderNo).isLessThanOrEqualTo(1);
            assertThat(orders.count(orderNo)).as("rows of " + orderNo).isEqualTo(commits);
            if (refused.containsKey(orderNo)) {
                assertThat(commits).as(orderNo + " refused a duplicate, so it is stored").isEqualTo(1);
            }
        }
        assertThat(stored).hasSizeGreaterThan(15);
    }

    @Test
    void aLockedSubmissionStoresEachOrderOnceUnderConcurrentDuplicates() throws Exception {
        Map<String, AtomicInteger> stored = new ConcurrentHashMap<>();
        run(submissions(20, 3).stream().map(s -> s.replace("claim-", "locked-")).toList(), orderNo -> {
            if (submissions.submitUnderLock(orderNo)) {
                count(stored, orderNo);
            }
        });
        for (int order = 0; order < 20; order++) {
            String orderNo = "locked-" + order;
            assertThat(stored.get(orderNo)).as(orderNo).hasValue(1);
            assertThat(orders.count(orderNo)).as("rows of " + orderNo).isEqualTo(1);
        }
    }

    private static List<String> submissions(int orders, int copies) {
        List<String> all = new ArrayList<>();
        for (int order = 0; order < orders; order++) {
            for (int copy = 0; copy < copies; copy++) {
                all.add("claim-" + order);
            }
        }
        Collections.shuffle(all);
        return all;
    }

    private static void count(Map<String, AtomicInteger> counts, String orderNo) {
        counts.computeIfAbsent(orderNo, k -> new AtomicInteger()).incrementAndGet();
    }

    private static void run(List<String> submissions, java.util.function.Consumer<String> submit) throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Future<?>> results = new ArrayList<>();
            for (String orderNo : submissions) {
                results.add(clients.submit(() -> submit.accept(orderNo)));
            }
            for (Future<?> result : results) {
                result.get(120, TimeUnit.SECONDS); // any other failure (a deadlock, a timeout) fails the test here
            }
        } finally {
            clients.shutdownNow();
        }
    }
}
