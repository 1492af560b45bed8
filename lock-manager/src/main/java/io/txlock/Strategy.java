package io.txlock;

/**
 * How the database providers take a lock: the three methods of the seeds, which lock a row of the lock table, and
 * the database's own advisory locks.
 */
public enum Strategy {
    /**
     * A row lock: {@code SELECT … FOR UPDATE} (or an {@code UPDATE}) on the lock's row inside a transaction.
     * Waiters are blocked by the database itself; the lock ends with the transaction, or when the
     * database notices the holder's connection died.
     */
    SELECT_FOR_UPDATE,
    /**
     * Compare-and-set on the row: one {@code UPDATE … SET version = <new token> … WHERE name = ? AND (state = 'FREE'
     * OR expires_at < now)}, which writes the grant's fencing token as the row's new version. Release sets the row
     * free; it stays for the next holder. Holders keep the lock by lease; waiters retry.
     */
    OPTIMISTIC_VERSION,
    /** The holder inserts the lock's row; a duplicate key means held. Release deletes the row. */
    UNIQUE_INSERT,
    /**
     * The database's advisory locks, which touch no row: PostgreSQL {@code pg_advisory_lock} on a connection held
     * for the lock in LEASE scope, {@code pg_advisory_xact_lock} in the caller's transaction in TRANSACTION scope;
     * MySQL/MariaDB {@code GET_LOCK}/{@code RELEASE_LOCK} on a connection held for the lock in both scopes (a
     * user lock belongs to a session, not to a transaction: the core releases a TRANSACTION-scoped one after its
     * transaction ends, and the caller's pooled connection never carries it). Waiters block in the database, bounded
     * by their wait; the lock ends on release, at the end of the transaction, or when the database notices the
     * holder's connection died. Fencing tokens come from the lock table's sequence, drawn while the lock is held.
     *
     * <p>A name maps to the database's key by a fixed hash of {@code <schema>.<table>:<name>} (the schema or
     * database the lock table is in, and the lock table): on PostgreSQL the first 8 bytes of its SHA-256 (UTF-8), a
     * 64-bit key; on MySQL/MariaDB the text itself if it is at most 64 characters of lower-case ASCII letters,
     * digits and {@code . _ : / -}, else the lower-case hex of its SHA-256. Two names whose keys collide share one
     * lock: that only makes one wait for the other, never lets both hold. Not on H2, which has no advisory locks.
     */
    ADVISORY
}
