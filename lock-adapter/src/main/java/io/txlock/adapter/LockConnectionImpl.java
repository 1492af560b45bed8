package io.txlock.adapter;

import io.txlock.LockHandle;
import io.txlock.LockInfo;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.Lock;

/**
 * The application's handle of a {@link TxlockManagedConnection}: the lock manager's API, with the locks granted inside a
 * JTA transaction watched by the {@link TransactionGuard}.
 */
public final class LockConnectionImpl implements LockConnection {

    private volatile TxlockManagedConnection connection;
    private volatile boolean closed;

    LockConnectionImpl(TxlockManagedConnection connection) {
        this.connection = connection;
    }

    /** @return the connection this handle was associated with before */
    TxlockManagedConnection associate(TxlockManagedConnection to) {
        TxlockManagedConnection previous = connection;
        connection = to;
        return previous;
    }

    void invalidate() {
        closed = true;
    }

    private TxlockManagedConnection open() {
        if (closed) {
            throw new IllegalStateException("this txlock connection is closed: get another from the connection factory");
        }
        return connection;
    }

    private LockManager manager() {
        return open().manager();
    }

    private LockHandle watched(LockHandle granted) {
        AdapterLockHandle handle = new AdapterLockHandle(granted);
        open().transactions().watch(handle);
        return handle;
    }

    @Override
    public LockHandle acquire(String name) {
        return watched(manager().acquire(name));
    }

    @Override
    public LockHandle acquire(String name, LockOptions options) {
        return watched(manager().acquire(name, options));
    }

    @Override
    public Optional<LockHandle> tryAcquire(String name) {
        return manager().tryAcquire(name).map(this::watched);
    }

    @Override
    public Optional<LockHandle> tryAcquire(String name, Duration wait) {
        return manager().tryAcquire(name, wait).map(this::watched);
    }

    @Override
    public Optional<LockHandle> tryAcquire(String name, LockOptions options) {
        return manager().tryAcquire(name, options).map(this::watched);
    }

    /** The grant completes on a container thread, outside the caller's transaction: the core binds it, if any. */
    @Override
    public CompletionStage<LockHandle> acquireAsync(String name, LockOptions options) {
        return manager().acquireAsync(name, options);
    }

    @Override
    public CompletionStage<LockHandle> acquireAsync(String name) {
        return manager().acquireAsync(name);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return manager().inspect(name);
    }

    @Override
    public Lock asLock(String name) {
        return manager().asLock(name);
    }

    @Override
    public io.txlock.LockHealth health() {
        return manager().health();
    }

    @Override
    public LockOptions defaults() {
        return manager().defaults();
    }

    @Override
    public String instanceId() {
        return manager().instanceId();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        connection.closed(this);
    }

    @Override
    public String toString() {
        return "LockConnection[" + (closed ? "closed" : connection.manager()) + "]";
    }
}
