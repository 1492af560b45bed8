package io.txlock.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockTimeoutException;
import io.txlock.it.app.Counters;
import io.txlock.it.app.LockedCounterEjb;
import io.txlock.it.app.LockedCounters;
import io.txlock.it.app.OrderService;
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
 * excluded (no update lost, never two inside), with and without a transaction; a short wait gives up; names come
 * from parameters and their properties.
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
    LockManager locks;

    @Test
    void lockedEjbMethodsExcludeConcurrentCallers() throws Exception {
        assertMutuallyExcluded("ejb", ejb::increment);
    }

    @Test
    void lockedTransactionalCdiMethodsExcludeConcurrentCallers() throws Exception {
        assertMutuallyExcluded("cdi-tx", cdi::incrementInTransaction);
    }

    @Test
    void lockedCdiMethodsWithoutATransactionExcludeConcurrentCallers() throws Exception {
        assertMutuallyExcluded("cdi-lease", cdi::incrementWithoutTransaction);
    }

    @Test
    void aLockedMethodWhoseLockStaysHeldGivesUpAfterItsWaitWithoutRunning() throws Exception {
        ExecutorService other = Executors.newSingleThreadExecutor();
        try (LockHandle held = locks.acquire("counter:busy")) {
            long start = System.nanoTime();
            Future<?> call = other.submit(() -> cdi.incrementOrGiveUp("busy"));
            assertThatThrownBy(() -> call.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(LockTimeoutException.class);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(250L, 3_300L);
            assertThat(counters.value("busy")).isZero();
        } finally {
            other.shutdownNow();
        }
    }

    @Test
    void namesComeFromParameterProperties() {
        assertThat(cdi.ship(new LockedCounters.Shipment("S-1"))).isEqualTo("S-1");
        assertThatThrownBy(() -> cdi.ship(new LockedCounters.Shipment(null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("{order.number} is null");
    }

    private void assertMutuallyExcluded(String counter, Consumer<String> increment) throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(CALLERS);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < CALLERS; i++) {
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
