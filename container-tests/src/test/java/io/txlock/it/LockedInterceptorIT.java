package io.txlock.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.LockTimeoutException;
import io.txlock.Strategy;
import io.txlock.it.app.Counters;
import io.txlock.it.app.LockedCounterEjb;
import io.txlock.it.app.LockedCounters;
import io.txlock.it.app.OrderService;
import io.txlock.it.app.ShortTransactions;
import io.txlock.it.app.Strategies;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code @Locked} on EJB and CDI bean methods: concurrent callers of a read-modify-write counter are mutually
 * excluded (no update lost, never two inside), with and without a transaction, also from another node that takes
 * the same lock explicitly; a short wait gives up; names come from parameters and their properties; a transaction
 * that times out under the method leaves it its result.
 */
@ExtendWith(ArquillianExtension.class)
class LockedInterceptorIT {

    private static final int CALLERS = 6;
    private static final int CALLS_EACH = 5;

    @Deployment
    static WebArchive deployment() {
        return Deployments.war("locked-interceptor", OrderService.class.getPackage());
    }

    @Inject
    LockedCounterEjb ejb;

    @Inject
    LockedCounters cdi;

    @Inject
    Counters counters;

    @Inject
    Strategies strategies;

    @Inject
    ShortTransactions shortTransactions;

    @Test
    void lockedEjbMethodsExcludeConcurrentCallers() throws Exception {
        assertMutuallyExcluded("ejb", List.of(ejb::increment));
    }

    @Test
    void lockedTransactionalCdiMethodsExcludeConcurrentCallers() throws Exception {
        assertMutuallyExcluded("cdi-tx", List.of(cdi::incrementInTransaction));
    }

    @Test
    void lockedCdiMethodsWithoutATransactionExcludeConcurrentCallers() throws Exception {
        assertMutuallyExcluded("cdi-lease", List.of(cdi::incrementWithoutTransaction));
    }

    @Test
    void lockedEjbMethodsExcludeCallersOnAnotherNode() throws Exception {
        LockManager otherNode = otherNode();
        assertMutuallyExcluded("ejb-nodes", List.of(ejb::increment, name -> ejb.incrementOn(otherNode, name)));
    }

    @Test
    void lockedCdiMethodsWithoutATransactionExcludeCallersOnAnotherNode() throws Exception {
        LockManager otherNode = otherNode();
        assertMutuallyExcluded("cdi-lease-nodes", List.of(cdi::incrementWithoutTransaction, name -> {
            try (LockHandle lock = otherNode.acquire("counter:" + name, LockOptions.defaults().withScope(LockScope.LEASE))) {
                counters.increment(name);
            }
        }));
    }

    @Test
    void aLockedMethodWhoseLockStaysHeldGivesUpAfterItsWaitWithoutRunning() throws Exception {
        ExecutorService other = Executors.newSingleThreadExecutor();
        try (LockHandle held = otherNode().acquire("counter:busy", LockOptions.defaults().withScope(LockScope.LEASE))) {
            long start = System.nanoTime();
            Future<?> call = other.submit(() -> cdi.incrementOrGiveUp("busy"));
            assertThatThrownBy(() -> call.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(LockTimeoutException.class);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("waited for its 300 ms")
                    .isGreaterThanOrEqualTo(250L);
            assertThat(held.isValid()).as("the lock stayed held: the call gave up on its own wait").isTrue();
            assertThat(counters.value("busy")).isZero();
        } finally {
            other.shutdownNow();
        }
    }

    @Test
    void namesComeFromParameterProperties() {
        assertThat(cdi.ship(new LockedCounters.Shipment("S-1"))).as("the lock another node saw while the method ran")
                .hasValueSatisfying(lock -> assertThat(lock.name()).isEqualTo("order:S-1"));
        assertThat(otherNode().inspect("order:S-1")).as("released when the method returned").isEmpty();
        assertThatThrownBy(() -> cdi.ship(new LockedCounters.Shipment(null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("{order.number} is null");
    }

    @Test
    void aTransactionThatTimesOutUnderALockedMethodLeavesItItsResult() throws Exception {
        assertThat(shortTransactions.callInATransactionThatTimesOut(() -> cdi.shipWhileTheTransactionTimesOut("T-1")))
                .as("the method's result; the caller's commit reports the timeout").isEqualTo("shipped, rolled back");
    }

    /** Another node, with the application's manager's strategy. */
    private LockManager otherNode() {
        return strategies.node(1, Strategy.SELECT_FOR_UPDATE);
    }

    /** Callers take turns at the ways to increment: caller i uses {@code increments.get(i % size)}. */
    private void assertMutuallyExcluded(String counter, List<Consumer<String>> increments) throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(CALLERS);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < CALLERS; i++) {
                Consumer<String> increment = increments.get(i % increments.size());
                calls.add(callers.submit(() -> {
                    for (int n = 0; n < CALLS_EACH; n++) {
                        increment.accept(counter);
                    }
                    return null;
                }));
            }
            for (Future<?> call : calls) {
                call.get(120, TimeUnit.SECONDS);
            }
        } finally {
            callers.shutdownNow();
        }
        assertThat(counters.value(counter)).as("no increment lost").isEqualTo(CALLERS * CALLS_EACH);
        assertThat(counters.mostInside(counter)).as("never two callers inside").isEqualTo(1);
    }
}
