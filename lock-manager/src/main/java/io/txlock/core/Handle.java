package io.txlock.core;

import io.txlock.LockHandle;
import io.txlock.LockScope;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

/** One acquire of a {@link Holding}: releasing it counts the holding down once. */
final class Handle implements LockHandle {
    private final Holdings holdings;
    final Holding holding;
    final AtomicBoolean released = new AtomicBoolean();
    /** This acquire re-entered a holding of the same owner, instead of being granted by the backend. */
    final boolean reentered;

    Handle(Holdings holdings, Holding holding, boolean reentered) {
        this.holdings = holdings;
        this.holding = holding;
        this.reentered = reentered;
    }

    @Override
    public String name() {
        return holding.state.name;
    }

    @Override
    public long fencingToken() {
        return holding.grant.fencingToken();
    }

    @Override
    public int holdCount() {
        return holdings.holdCount(holding);
    }

    @Override
    public LockScope scope() {
        return holding.scope();
    }

    @Override
    public Instant expiresAt() {
        return holding.expiresAt();
    }

    @Override
    public boolean isValid() {
        return !released.get() && holding.isValid();
    }

    @Override
    public void extend(Duration lease) {
        if (released.get()) {
            throw new io.txlock.LockNotHeldException("cannot extend lock " + holding + ": this handle was released");
        }
        holdings.extend(holding, lease);
    }

    @Override
    public void onLost(Runnable listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        holdings.onLost(holding, listener);
    }

    @Override
    public void release() {
        holdings.release(this, false);
    }

    @Override
    public void close() {
        holdings.release(this, true);
    }

    @Override
    public String toString() {
        return "LockHandle[" + holding + ", " + holding.scope() + (released.get() ? ", released" : "") + "]";
    }
}
