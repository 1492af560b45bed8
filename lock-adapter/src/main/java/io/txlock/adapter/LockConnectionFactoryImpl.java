package io.txlock.adapter;

import jakarta.resource.ResourceException;
import jakarta.resource.spi.ConnectionManager;
import javax.naming.Reference;

/** The connection factory the container binds in JNDI; connections come from the container's pool. */
public final class LockConnectionFactoryImpl implements LockConnectionFactory {

    private static final long serialVersionUID = 1L;

    private final transient TxlockManagedConnectionFactory factory;
    private final transient ConnectionManager connectionManager;
    private Reference reference;

    LockConnectionFactoryImpl(TxlockManagedConnectionFactory factory, ConnectionManager connectionManager) {
        this.factory = factory;
        this.connectionManager = connectionManager;
    }

    @Override
    public LockConnection getConnection() throws ResourceException {
        return (LockConnection) connectionManager.allocateConnection(factory, null);
    }

    @Override
    public void setReference(Reference reference) {
        this.reference = reference;
    }

    @Override
    public Reference getReference() {
        return reference;
    }
}
