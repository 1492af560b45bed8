package io.txlock;

import java.time.Duration;
import java.time.Instant;

/**
 * A granted lock. Close it (try-with-resources) or call {@link #release()} exactly once per acquire.
 *
 * <p>A handle is not tied to a thread: an asynchronous caller may release it from any thread. Every acquire
 * returns its own handle; a reentrant acquire by the same owner returns a new handle on the same grant, with
 * the same fencing token and a higher {@link #holdCount()}. The lock is freed when the count returns to zero
 * (or, in {@link LockScope#TRANSACTION} scope, when the transaction ends).
 */
public interface LockHandle extends AutoCloseable {

    /** @return the lock name */
    String name();

    /**
     * A number that is strictly greater than that of every earlier holder of this name, and the same for
     * every reentry of one grant. Pass it to the resource you protect and let it refuse writes carrying a
     * token lower than the last one it saw: that keeps a holder that lost its lock (a long pause, an
     * expired lease) from doing damage.
     *
     * @return the fencing token of this grant
     */
    long fencingToken();

    /** @return how many acquires of this grant are not yet released */
    int holdCount();

    /** @return the resolved scope: {@link LockScope#TRANSACTION} or {@link LockScope#LEASE}, never AUTO */
    LockScope scope();

    /**
     * @return when the lease runs out unless renewed, estimated conservatively on this JVM's clock (the
     *     moment the acquire started plus the lease); {@code null} when the lock ends only with the transaction
     *     or the backend session
     */
    Instant expiresAt();

    /**
     * Whether this holder can still rely on the lock. A lock with a lease ({@link #expiresAt()} is not null) is
     * invalid from the moment that lease has run out on this JVM's clock (counted from before the acquire, or before
     * the last renewal the backend confirmed) without a renewal confirmed in time. That holds while a renewal is
     * still waiting for a backend that stopped answering without refusing (dropped packets, a paused server), and for
     * good: another owner may have taken the lock meanwhile, so a renewal confirmed after the lease ran out does not
     * make the handle valid again. Such a lock is lost like any other: {@link #onLost} listeners run, its transaction
     * is marked rollback-only, and {@link #release()} throws {@link LockNotHeldException}.
     *
     * @return {@code false} once this holder can no longer rely on the lock: released, lease run out without a
     *     confirmed renewal, renewal refused, session expired, or (for ZooKeeper) connection suspended and not yet
     *     restored
     */
    boolean isValid();

    /**
     * Renews the lease now, for {@code lease} from now; the fencing token stays the same.
     *
     * @param lease the new lease, at least 1 ms
     * @throws LockNotHeldException if the lock is no longer held by this holder
     * @throws IllegalArgumentException if {@code lease} is null or shorter than 1 ms
     */
    void extend(Duration lease);

    /**
     * Runs {@code listener} once when the lock is lost while held (lease not renewed in time, session
     * expired, backend unreachable past the lease), on a txlock thread; at once if it is already lost.
     * Not called after a normal release.
     *
     * @param listener what to do, for example stop the protected work
     */
    void onLost(Runnable listener);

    /**
     * Releases this acquire: the hold count goes down by one and the lock is freed when it reaches zero.
     * In {@link LockScope#TRANSACTION} scope the lock is freed when the transaction ends.
     *
     * @throws LockNotHeldException if this handle was already released, or the lock was lost meanwhile (the
     *     protected work ran without the lock: treat its results with suspicion)
     * @throws LockBackendException if the backend could not be reached; the lease, if any, still runs out
     */
    void release();

    /**
     * Same as {@link #release()}, except that closing an already released handle, or one whose transaction has
     * ended (which freed the lock), does nothing.
     *
     * @throws LockNotHeldException if the lock was lost while held
     */
    @Override
    void close();
}
