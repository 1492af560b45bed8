package io.txlock.adapter;

import jakarta.resource.Referenceable;
import jakarta.resource.ResourceException;
import java.io.Serializable;

/**
 * The adapter's connection factory, bound in JNDI (by default at {@code java:/txlock/locks}).
 *
 * <pre>{@code
 * @Resource(lookup = "java:/txlock/locks")
 * LockConnectionFactory locks;
 *
 * try (LockConnection connection = locks.getConnection()) {
 *     LockHandle lock = connection.acquire("order:42");   // in a JTA transaction: held until it commits or rolls back
 *     ...
 * }
 * }</pre>
 */
public interface LockConnectionFactory extends Serializable, Referenceable {

    /**
     * @return a connection to the adapter's lock manager, from the container's pool; close it when done
     * @throws ResourceException if the lock manager could not be built (its message says which configuration property
     *     to fix) or the adapter is stopped
     */
    LockConnection getConnection() throws ResourceException;
}
