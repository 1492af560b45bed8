package io.txlock.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.time.Instant;

/**
 * One row of {@code method_lock}: the state of one named lock.
 *
 * <p>The DDL lives in the {@code txlock-sql} artifact, one script per dialect; this mapping is validated
 * against each of them by Hibernate's schema validation in the build, so the two cannot drift apart.
 * {@link #getVersion() version} is the fencing token of the latest grant. It is JPA's {@code @Version}, so a
 * version-guarded update is JPA's optimistic check, but txlock never lets JPA increment it ({@code version + 1} on
 * flush could repeat a token after a rollback): tokens come from a sequence that no rollback takes back, and are
 * written with explicit updates. Times are database time; the library never writes a client clock into them.
 */
@Entity
@Table(name = "method_lock")
public class MethodLock {

    /** Longest lock name, in Unicode code points. */
    public static final int MAX_NAME_LENGTH = 255;

    @Id
    @Column(name = "name", nullable = false, length = MAX_NAME_LENGTH)
    private String name;

    @Enumerated(EnumType.STRING)
    @Column(name = "state", nullable = false, length = 8)
    private LockState state;

    @Version
    @Column(name = "version", nullable = false)
    private long version;

    @Column(name = "owner_host")
    private String ownerHost;

    @Column(name = "owner_id")
    private String ownerId;

    @Column(name = "hold_count", nullable = false)
    private int holdCount;

    @Column(name = "acquired_at")
    private Instant acquiredAt;

    @Column(name = "expires_at")
    private Instant expiresAt;

    @Column(name = "updated_at", nullable = false)
    private Instant updatedAt;

    /** For JPA. */
    protected MethodLock() {
    }

    /**
     * A free lock row.
     *
     * @param name the lock name
     * @param version the initial fencing token
     * @param now the database time of creation
     */
    public MethodLock(String name, long version, Instant now) {
        this.name = name;
        this.state = LockState.FREE;
        this.version = version;
        this.updatedAt = now;
    }

    /** @return the lock name, the primary key */
    public String getName() {
        return name;
    }

    /** @return whether the lock is granted */
    public LockState getState() {
        return state;
    }

    /** @param state whether the lock is granted */
    public void setState(LockState state) {
        this.state = state;
    }

    /** @return the fencing token of the latest grant */
    public long getVersion() {
        return version;
    }

    /**
     * @param version the fencing token of a new row; JPA ignores changes to the version of a managed entity, so
     *     grants of existing rows are written with a bulk update
     */
    public void setVersion(long version) {
        this.version = version;
    }

    /** @return the host of the holder, or {@code null} when free */
    public String getOwnerHost() {
        return ownerHost;
    }

    /** @param ownerHost the host of the holder */
    public void setOwnerHost(String ownerHost) {
        this.ownerHost = ownerHost;
    }

    /** @return the holder: lock manager instance and thread or transaction, or {@code null} when free */
    public String getOwnerId() {
        return ownerId;
    }

    /** @param ownerId the holder's identity */
    public void setOwnerId(String ownerId) {
        this.ownerId = ownerId;
    }

    /** @return 1 while held, 0 when free; reentries are counted by the holder's lock manager */
    public int getHoldCount() {
        return holdCount;
    }

    /** @param holdCount 1 while held, 0 when free */
    public void setHoldCount(int holdCount) {
        this.holdCount = holdCount;
    }

    /** @return when the current grant was made, database time */
    public Instant getAcquiredAt() {
        return acquiredAt;
    }

    /** @param acquiredAt when the current grant was made, database time */
    public void setAcquiredAt(Instant acquiredAt) {
        this.acquiredAt = acquiredAt;
    }

    /** @return when the current lease ends unless renewed, database time; {@code null} when free */
    public Instant getExpiresAt() {
        return expiresAt;
    }

    /** @param expiresAt when the lease ends, database time */
    public void setExpiresAt(Instant expiresAt) {
        this.expiresAt = expiresAt;
    }

    /** @return the last change, database time */
    public Instant getUpdatedAt() {
        return updatedAt;
    }

    /** @param updatedAt the last change, database time */
    public void setUpdatedAt(Instant updatedAt) {
        this.updatedAt = updatedAt;
    }

    @Override
    public String toString() {
        return "MethodLock[" + name + ", " + state + ", version " + version + ", owner " + ownerHost + "/" + ownerId
                + ", expires " + expiresAt + "]";
    }
}
