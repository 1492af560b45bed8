package io.txlock.adapter;

import io.txlock.LockHandle;
import io.txlock.LockScope;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

/** A lock granted through a {@link LockConnection}: the manager's handle, remembering whether its owner released it. */
final class AdapterLockHandle implements LockHandle {

    private final LockHandle handle;
    private final AtomicBoolean released = new AtomicBoolean();

    AdapterLockHandle(LockHandle handle) {
        this.handle = handle;
    }

    /** @return true if the lock is no longer valid although its owner did not release it through this handle */
    boolean lostWhileHeld() {
        return !released.get() && !handle.isValid();
    }

    @Override
    public String name() {
        return handle.name();
    }

    @Override
    public long fencingToken() {
        return handle.fencingToken();
    }

    @Override
    public int holdCount() {
        return handle.holdCount();
    }

    @Override
    public LockScope scope() {
        return handle.scope();
    }

    @Override
    public Instant expiresAt() {
        return handle.expiresAt();
    }

    @Override
    public boolean isValid() {
        return handle.isValid();
    }

    @Override
    public void extend(Duration lease) {
        handle.extend(lease);
    }

    @Override
    public void onLost(Runnable listener) {
        handle.onLost(listener);
    }

    @Override
    public void release() {
        released.set(true);
        handle.release();
    }

    @Override
    public void close() {
        released.set(true);
        handle.close();
    }

    @Override
    public String toString() {
        return handle.toString();
    }
}
