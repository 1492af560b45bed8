package io.txlock.adapter;

import io.txlock.LockManager;

/**
 * A connection to the adapter's lock manager: the whole {@link LockManager} API, shared by every connection of one
 * connection factory. Locks are owned by the calling thread or its transaction, as with a {@link LockManager}, not by
 * the connection: closing the connection does not release them. A lock taken inside a JTA transaction (scope
 * {@code AUTO} or {@code TRANSACTION}) is released when the transaction commits or rolls back; a transaction during
 * which a lock taken through a connection was lost does not commit.
 */
public interface LockConnection extends LockManager {

    /**
     * Returns this connection to the container's pool, as Jakarta Connectors defines it. Locks stay held by their
     * owners; the lock manager lives on until the adapter stops. Using the connection afterwards throws
     * {@link IllegalStateException}. Closing twice does nothing.
     */
    @Override
    void close();
}
