package io.txlock.spi;

import io.txlock.LockBackendException;
import io.txlock.LockInfo;
import io.txlock.LockNotHeldException;
import java.time.Duration;
import java.util.Optional;

/**
 * A backend's atomic lock steps. Implementations must be thread safe. Every method reports a backend that
 * failed or cannot be reached with {@link LockBackendException}, never as "held" or "not held".
 *
 * <p>The core guarantees: names are validated; an owner never asks again for a lock it holds (reentry is
 * counted by the core); a grant is renewed, released and completed by the core exactly as the SPI says.
 */
public interface LockProvider extends AutoCloseable {

    /** @return a short description for errors and logs, e.g. {@code "postgresql SELECT_FOR_UPDATE on method_lock"} */
    String describe();

    /**
     * @return {@code true} if {@link #tryAcquire} can wait in the backend itself (a row lock, a watch) for up
     *     to {@link LockRequest#maxBlock()}; {@code false} if it always answers at once and the core must wait
     *     and retry
     */
    default boolean blocksWhileWaiting() {
        return false;
    }

    /**
     * @return {@code true} if transactional attempts run inside the caller's transaction (on the calling
     *     thread) so that the grant ends with it; {@code false} if the core ends transactional grants by
     *     calling {@link #release(Grant)} after completion
     */
    default boolean joinsCallerTransaction() {
        return false;
    }

    /**
     * One atomic attempt to take the lock.
     *
     * @param request what to take, for whom, for how long
     * @return granted, or held by another owner
     * @throws LockBackendException if the backend failed
     */
    Attempt tryAcquire(LockRequest request);

    /**
     * Extends a leased grant to {@code lease} from now, keeping its token. For a grant that is not
     * {@link Grant#leased() leased} (called only when its owner extends a lock it does not auto-renew) there is
     * nothing to extend: check that it is still held.
     *
     * @param grant a grant of this provider
     * @param lease the new lease
     * @throws LockNotHeldException if the grant is no longer held (expired and taken, deleted)
     * @throws LockBackendException if the backend failed
     */
    void renew(Grant grant, Duration lease);

    /**
     * Frees a grant, only if it is still this grant (owner and token checked in the backend).
     *
     * @param grant a grant of this provider
     * @throws LockNotHeldException if the grant was no longer held; nothing was changed
     * @throws LockBackendException if the backend failed
     */
    void release(Grant grant);

    /**
     * Called before the caller's transaction commits, for grants that {@link Grant#endsWithTransaction() end
     * with it}: the last moment to write inside that transaction (for example to mark the row free, so that
     * waiters see it free at commit).
     *
     * @param grant a grant of this provider that joined the transaction
     */
    default void beforeCompletion(Grant grant) {
    }

    /**
     * @param name a lock name
     * @return the current holder, or empty if the lock is free
     * @throws LockBackendException if the backend failed
     */
    Optional<LockInfo> inspect(String name);

    /**
     * @return the transactions this provider's TRANSACTION-scoped locks join, where it was built over them (local
     *     JDBC transactions, say): a manager built without transaction support of its own then uses these, so that
     *     AUTO scope finds the caller's transaction. Empty (the default) where the manager's support finds it.
     */
    default Optional<io.txlock.spi.TransactionSupport> transactions() {
        return Optional.empty();
    }

    /**
     * @return the operator's view of this backend's locks (list the held ones, free a stuck one), or empty (the
     *     default) where the provider offers none
     */
    default Optional<LockAdministration> administration() {
        return Optional.empty();
    }

    /**
     * A wake-up hint: runs {@code onRelease} (on any thread, quickly) when the lock may have been released by
     * another process, so waiters need not poll. Hints may be lost; the core still re-checks now and then.
     *
     * @param name a lock name
     * @param onRelease what to run
     * @return a subscription to close when no longer needed, or empty if the provider has no hints
     */
    default Optional<AutoCloseable> subscribe(String name, Runnable onRelease) {
        return Optional.empty();
    }

    /** Frees the provider's resources. The core calls it when its {@code LockManager} closes. */
    @Override
    default void close() {
    }
}
