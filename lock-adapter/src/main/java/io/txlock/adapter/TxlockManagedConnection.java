package io.txlock.adapter;

import io.txlock.LockManager;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.ConnectionEvent;
import jakarta.resource.spi.ConnectionEventListener;
import jakarta.resource.spi.ConnectionRequestInfo;
import jakarta.resource.spi.LocalTransaction;
import jakarta.resource.spi.ManagedConnection;
import jakarta.resource.spi.ManagedConnectionMetaData;
import jakarta.resource.NotSupportedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.security.auth.Subject;
import javax.transaction.xa.XAResource;

/**
 * A pooled connection of the adapter: a view of its factory's lock manager, which all of them share. It enlists no
 * resource in transactions ({@link TransactionGuard} says why); its handles are {@link LockConnectionImpl}.
 */
public final class TxlockManagedConnection extends WithLogWriter implements ManagedConnection {

    private final TxlockManagedConnectionFactory factory;
    private final LockManager manager;
    private final List<LockConnectionImpl> handles = new CopyOnWriteArrayList<>();
    private final List<ConnectionEventListener> listeners = new CopyOnWriteArrayList<>();

    TxlockManagedConnection(TxlockManagedConnectionFactory factory, LockManager manager) {
        this.factory = factory;
        this.manager = manager;
    }

    TxlockManagedConnectionFactory factory() {
        return factory;
    }

    LockManager manager() {
        return manager;
    }

    TransactionGuard transactions() {
        return factory.transactions();
    }

    @Override
    public Object getConnection(Subject subject, ConnectionRequestInfo info) {
        LockConnectionImpl handle = new LockConnectionImpl(this);
        handles.add(handle);
        return handle;
    }

    @Override
    public void associateConnection(Object connection) throws ResourceException {
        if (!(connection instanceof LockConnectionImpl handle)) {
            throw new ResourceException("not a txlock connection: " + connection);
        }
        TxlockManagedConnection previous = handle.associate(this);
        if (previous != null) {
            previous.handles.remove(handle);
        }
        handles.add(handle);
    }

    /** A handle was closed by the application: tell the container, which returns this connection to its pool. */
    void closed(LockConnectionImpl handle) {
        handles.remove(handle);
        ConnectionEvent event = new ConnectionEvent(this, ConnectionEvent.CONNECTION_CLOSED);
        event.setConnectionHandle(handle);
        for (ConnectionEventListener listener : listeners) {
            listener.connectionClosed(event);
        }
    }

    @Override
    public void cleanup() {
        List<LockConnectionImpl> open = new ArrayList<>(handles);
        handles.clear();
        open.forEach(LockConnectionImpl::invalidate);
    }

    @Override
    public void destroy() {
        cleanup();
    }

    @Override
    public void addConnectionEventListener(ConnectionEventListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeConnectionEventListener(ConnectionEventListener listener) {
        listeners.remove(listener);
    }

    /** Not supported: see {@link TransactionGuard}. */
    @Override
    public XAResource getXAResource() throws ResourceException {
        throw new NotSupportedException("txlock's connections enlist no XAResource: locks join JTA transactions through"
                + " interposed synchronizations");
    }

    /** Not supported: see {@link TransactionGuard}. */
    @Override
    public LocalTransaction getLocalTransaction() throws ResourceException {
        throw new NotSupportedException("txlock's connections have no local transactions: locks join JTA transactions"
                + " through interposed synchronizations");
    }

    @Override
    public ManagedConnectionMetaData getMetaData() {
        return new ManagedConnectionMetaData() {
            @Override
            public String getEISProductName() {
                return "txlock " + manager;
            }

            @Override
            public String getEISProductVersion() {
                return "0.1";
            }

            @Override
            public int getMaxConnections() {
                return 0;
            }

            @Override
            public String getUserName() {
                return "";
            }
        };
    }
}
