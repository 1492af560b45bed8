package io.txlock.it.app;

import io.txlock.LockHandle;
import io.txlock.LockInfo;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.cdi.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.util.Optional;

/** A CDI bean whose methods are guarded by {@link Locked}, with and without a transaction. */
@ApplicationScoped
public class LockedCounters {

    @Inject
    Counters counters;

    @Inject
    Strategies strategies;

    /** In a transaction: the lock is held until it commits. */
    @Transactional
    @Locked("counter:{0}")
    public void incrementInTransaction(String name) {
        counters.increment(name);
    }

    /** Without a transaction: a LEASE lock released when the method returns. */
    @Locked(value = "counter:{name}", scope = LockScope.LEASE)
    public void incrementWithoutTransaction(String name) {
        counters.increment(name);
    }

    /** Gives up after a short wait. */
    @Locked(value = "counter:{name}", waitTime = "300ms")
    public void incrementOrGiveUp(String name) {
        counters.increment(name);
    }

    /**
     * Locks on a property of its argument.
     *
     * @return the lock named {@code "order:" + order.number()} as another node sees it while this method runs
     */
    @Locked("order:{order.number}")
    public Optional<LockInfo> ship(Shipment order) {
        return otherNode().inspect("order:" + order.number());
    }

    /**
     * Runs in its caller's transaction, outlives it (the caller's transaction times out and another node takes the
     * lock), and returns normally.
     *
     * @return what the caller gets: "shipped"
     */
    @Locked("order:{orderNo}")
    public String shipWhileTheTransactionTimesOut(String orderNo) {
        Optional<LockHandle> taken = otherNode().tryAcquire("order:" + orderNo, LockOptions.defaults()
                .withScope(LockScope.LEASE).withWait(Duration.ofSeconds(60)));
        if (taken.isEmpty()) {
            throw new IllegalStateException("the caller's transaction did not time out within 60 s");
        }
        taken.get().release();
        return "shipped";
    }

    /** A node other than the application's manager, with its strategy. */
    private LockManager otherNode() {
        return strategies.node(1, Strategy.SELECT_FOR_UPDATE);
    }

    /** An order to ship. */
    public record Shipment(String number) {
    }
}
