package io.txlock.testkit;

import io.txlock.LockInfo;
import io.txlock.spi.Attempt;
import io.txlock.spi.Grant;
import io.txlock.spi.LockProvider;
import io.txlock.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;

/**
 * A real provider seen through a test: every call goes to it unchanged; a test overrides the calls it watches.
 */
public abstract class ForwardingProvider implements LockProvider {

    /** The provider that answers. */
    protected final LockProvider delegate;

    /** @param delegate the provider that answers */
    protected ForwardingProvider(LockProvider delegate) {
        this.delegate = delegate;
    }

    @Override
    public String describe() {
        return delegate.describe();
    }

    @Override
    public boolean blocksWhileWaiting() {
        return delegate.blocksWhileWaiting();
    }

    @Override
    public boolean joinsCallerTransaction() {
        return delegate.joinsCallerTransaction();
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        return delegate.tryAcquire(request);
    }

    @Override
    public void renew(Grant grant, Duration lease) {
        delegate.renew(grant, lease);
    }

    @Override
    public void release(Grant grant) {
        delegate.release(grant);
    }

    @Override
    public void beforeCompletion(Grant grant) {
        delegate.beforeCompletion(grant);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return delegate.inspect(name);
    }

    @Override
    public Optional<AutoCloseable> subscribe(String name, Runnable onRelease) {
        return delegate.subscribe(name, onRelease);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
