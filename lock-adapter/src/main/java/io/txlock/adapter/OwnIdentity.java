package io.txlock.adapter;

/**
 * An object of the adapter that the container keeps and compares (the resource adapter, a connection factory, a
 * pooled connection): each owns its lock managers, threads or handles, so it is equal only to itself, whatever its
 * configuration. The container requires these classes to declare {@code equals} and {@code hashCode}.
 */
abstract class OwnIdentity {

    @Override
    public final boolean equals(Object other) {
        return this == other;
    }

    @Override
    public final int hashCode() {
        return System.identityHashCode(this);
    }
}
