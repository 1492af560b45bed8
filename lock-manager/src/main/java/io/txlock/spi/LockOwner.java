package io.txlock.spi;

/**
 * Who asks for a lock, as written to the backend.
 *
 * @param host the host name of the JVM
 * @param instance the random id of the lock manager: two managers, in one JVM or two, never share it
 * @param local the thread or transaction within the manager
 */
public record LockOwner(String host, String instance, String local) {

    /** @return {@code instance + "/" + local}: unique among all holders everywhere */
    public String id() {
        return instance + "/" + local;
    }
}
