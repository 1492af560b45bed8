package io.txlock.entity;

/** Whether a lock row is currently granted. Stored by name in {@code method_lock.state}. */
public enum LockState {
    /** Nobody holds the lock; the row keeps the last fencing token. */
    FREE,
    /** A holder was granted the lock; it lasts until release, the end of its transaction or {@code expires_at}. */
    HELD
}
