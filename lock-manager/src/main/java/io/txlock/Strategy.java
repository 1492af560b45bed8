package io.txlock;

/** How the database providers take a lock: the three methods of the seeds. */
public enum Strategy {
    /**
     * A row lock: {@code SELECT … FOR UPDATE} (or an {@code UPDATE}) on the lock's row inside a transaction.
     * Waiters are blocked by the database itself; the lock ends with the transaction, or when the
     * database notices the holder's connection died.
     */
    SELECT_FOR_UPDATE,
    /**
     * Compare-and-set on the row's version: {@code UPDATE … WHERE name = ? AND version = ? AND (state = 'FREE'
     * OR expires_at < now)}. Holders keep the lock by lease; waiters retry.
     */
    OPTIMISTIC_VERSION,
    /** The holder inserts the lock's row; a duplicate key means held. Release deletes the row. */
    UNIQUE_INSERT
}
