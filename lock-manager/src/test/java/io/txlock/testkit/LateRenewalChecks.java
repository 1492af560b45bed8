package io.txlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.LockException;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockNotHeldException;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.spi.Grant;
import io.txlock.spi.LockProvider;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Part of the contract kit ({@link LockContractTest} implements it): renewals whose answer comes after the lease they
 * ask for. The backend applies a shortening {@code extend} at once, and may let another node in when the short lease
 * ends, while the answer is still on its way; the holder must not say {@code isValid()} meanwhile, whatever the
 * answer finally is.
 */
public interface LateRenewalChecks {

    /** How many holders extend to a short lease whose answer comes late, one after the other. */
    int LATE_RENEWAL_ROUNDS = 3;
    /** The lease an extend shortens a held lock to. */
    Duration SHORT_LEASE = Duration.ofMillis(300);
    /** How much later than {@link #SHORT_LEASE} the extend's answer reaches the holder. */
    Duration ANSWER_LATE_BY = Duration.ofMillis(500);
    /** How long a check waits for something that must happen. */
    Duration LATE_RENEWAL_PATIENCE = Duration.ofSeconds(30);

    /**
     * @param wrap changes the provider under test, for example to delay its answers
     * @return a new manager (a node) over a new provider on the backend under test, changed by {@code wrap}; the kit
     *     closes it after the test
     */
    LockManager nodeOver(UnaryOperator<LockProvider> wrap);

    /**
     * @param suffix what the name is about
     * @return a lock name unique to this test run
     */
    String uniqueName(String suffix);

    @Test
    @Timeout(120)
    default void aShorteningExtendAnsweredAfterItsLeaseNeverLeavesTwoValidHolders() throws Exception {
        for (int round = 0; round < LATE_RENEWAL_ROUNDS; round++) {
            String name = uniqueName("late-renewal-" + round);
            AtomicBoolean answerLate = new AtomicBoolean();
            LockManager holder = nodeOver(provider -> new ForwardingProvider(provider) {
                @Override
                public void renew(Grant grant, Duration lease) {
                    long sent = System.nanoTime();
                    delegate.renew(grant, lease);
                    if (answerLate.get()) {
                        long late = sent + lease.plus(ANSWER_LATE_BY).toNanos() - System.nanoTime();
                        try {
                            TimeUnit.NANOSECONDS.sleep(Math.max(0, late)); // the fault: the answer is late
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }
            });
            LockManager other = nodeOver(UnaryOperator.identity());
            LockHandle held = holder.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE)
                    .withLease(LATE_RENEWAL_PATIENCE).withAutoRenew(false).withWait(LATE_RENEWAL_PATIENCE));
            answerLate.set(true);
            CompletableFuture<Void> extending = CompletableFuture.runAsync(() -> held.extend(SHORT_LEASE));

            try (LockHandle taken = other.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE)
                    .withWait(LATE_RENEWAL_PATIENCE))) {
                assertThat(held.isValid()).as("round %d: the handle whose extend to %s is answered %s late, once another"
                        + " node was granted '%s'", round, SHORT_LEASE, ANSWER_LATE_BY, name).isFalse();
                assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
                assertThatThrownBy(() -> {
                    try {
                        extending.get(LATE_RENEWAL_PATIENCE.toSeconds(), TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        throw e.getCause();
                    }
                }).as("round %d: the extend answered after its lease", round).isInstanceOf(LockException.class);
                assertThat(held.isValid()).isFalse();
                assertThatThrownBy(held::release).isInstanceOf(LockNotHeldException.class);
                assertThat(taken.isValid()).as("round %d: the new holder", round).isTrue();
            }
        }
    }
}
