package io.txlock.core;

import io.txlock.LockOptions;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/** {@link java.util.concurrent.locks.Lock} over one name; the owner is the calling thread or its transaction. */
final class LockView implements Lock {
    private final CoreLockManager manager;
    private final String name;

    LockView(CoreLockManager manager, String name) {
        this.manager = manager;
        this.name = name;
    }

    @Override
    public void lock() {
        manager.acquireForView(name, manager.defaults().withWait(LockOptions.FOREVER), false);
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        try {
            manager.acquireForView(name, manager.defaults().withWait(LockOptions.FOREVER), true);
        } catch (io.txlock.LockInterruptedException e) {
            Thread.interrupted();
            throw (InterruptedException) e.getCause();
        }
    }

    @Override
    public boolean tryLock() {
        return manager.acquireForView(name, manager.defaults().withWait(java.time.Duration.ZERO), false);
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        try {
            return manager.acquireForView(name,
                    manager.defaults().withWait(java.time.Duration.ofNanos(Math.max(0, unit.toNanos(time)))), true);
        } catch (io.txlock.LockInterruptedException e) {
            Thread.interrupted();
            throw (InterruptedException) e.getCause();
        }
    }

    @Override
    public void unlock() {
        manager.releaseForView(name);
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("txlock locks have no conditions: signal through your own data instead");
    }

    @Override
    public String toString() {
        return "Lock[" + name + " via " + manager + "]";
    }
}
