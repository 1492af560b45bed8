package io.txlock;

import java.time.Instant;

/**
 * What a backend knows about a held lock, as returned by {@link LockManager#inspect(String)}.
 *
 * @param name the lock name
 * @param ownerHost the holder's host
 * @param ownerId the holder's identity: its lock manager instance and its thread or transaction
 * @param fencingToken the token of the current grant
 * @param since when the current grant was made, backend time; {@code null} if the backend does not record it
 * @param until when the lease runs out unless renewed, backend time; {@code null} if the lock ends only with
 *     its holder's transaction or session
 * @param holdCount how many times the holder acquired it without releasing (at least 1)
 */
public record LockInfo(String name, String ownerHost, String ownerId, long fencingToken, Instant since,
        Instant until, int holdCount) {

    /**
     * @param holdCount the hold count known to the holder's own lock manager
     * @return a copy with that hold count
     */
    public LockInfo withHoldCount(int holdCount) {
        return new LockInfo(name, ownerHost, ownerId, fencingToken, since, until, holdCount);
    }
}
