package io.txlock.core;

import io.txlock.LockHandle;
import io.txlock.LockScope;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;

/** One acquire of a {@link Holding}: releasing it counts the holding down once. {@code released} is set once, atomically. */
final class Handle implements LockHandle {
    private static final VarHandle RELEASED;

    static {
        try {
            RELEASED = MethodHandles.lookup().findVarHandle(Handle.class, "released", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Holdings holdings;
    final Holding holding;
    private volatile boolean released;
    /** This acquire re-entered a holding of the same owner, instead of being granted by the backend. */
    final boolean reentered;

    Handle(Holdings holdings, Holding holding, boolean reentered) {
        this.holdings = holdings;
        this.holding = holding;
        this.reentered = reentered;
    }

    /** @return true for the one call that marked this handle released */
    boolean markReleased() {
        return RELEASED.compareAndSet(this, false, true);
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
        return !released && holding.isValid();
    }

    @Override
    public void extend(Duration lease) {
        if (released) {
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
        return "LockHandle[" + holding + ", " + holding.scope() + (released ? ", released" : "") + "]";
    }
}
