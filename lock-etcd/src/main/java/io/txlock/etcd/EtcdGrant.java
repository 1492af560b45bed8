package io.txlock.etcd;

import io.etcd.jetcd.ByteSequence;
import io.txlock.spi.Grant;

/**
 * A lock granted by {@link EtcdLockProvider}: its key, whose create revision is the fencing token, and the etcd
 * lease the key is bound to. An {@code extend} beyond the lease's TTL binds the key to a new, longer lease.
 */
final class EtcdGrant implements Grant {

    private final String name;
    private final ByteSequence key;
    private final ByteSequence value;
    private final long createRevision;
    /** Guarded by this. */
    private long leaseId;
    /** Guarded by this: the TTL etcd granted the lease, in seconds. */
    private long ttlSeconds;
    /** Guarded by this: released, its lease handed on to later attempts; nothing may be done with it any more. */
    private boolean released;

    EtcdGrant(String name, ByteSequence key, ByteSequence value, long createRevision, long leaseId, long ttlSeconds) {
        this.name = name;
        this.key = key;
        this.value = value;
        this.createRevision = createRevision;
        this.leaseId = leaseId;
        this.ttlSeconds = ttlSeconds;
    }

    @Override
    public String name() {
        return name;
    }

    /** @return the create revision of the holder's key: etcd's revisions only grow, across the whole cluster */
    @Override
    public long fencingToken() {
        return createRevision;
    }

    /** An etcd lock is a key bound to a lease with a TTL, whatever its scope: the core renews it while it is held. */
    @Override
    public boolean leased() {
        return true;
    }

    ByteSequence key() {
        return key;
    }

    ByteSequence value() {
        return value;
    }

    synchronized long leaseId() {
        return leaseId;
    }

    synchronized long ttlSeconds() {
        return ttlSeconds;
    }

    /** @return whether it was released before: its lease may belong to another grant by now */
    synchronized boolean released() {
        return released;
    }

    synchronized void markReleased() {
        released = true;
    }

    synchronized void rebind(long newLeaseId, long newTtlSeconds) {
        this.leaseId = newLeaseId;
        this.ttlSeconds = newTtlSeconds;
    }

    @Override
    public String toString() {
        return "'" + name + "' token " + createRevision;
    }
}
