package io.txlock.spi;

import java.time.Duration;

/**
 * One attempt to take a lock.
 *
 * @param name the validated lock name
 * @param owner who asks
 * @param lease how long a leased grant lasts without renewal
 * @param maxBlock how long a provider that {@link LockProvider#blocksWhileWaiting() blocks while waiting}
 *     may block in the backend before answering "held"; zero means answer at once
 * @param transactional the lock must last until the caller's transaction completes; a provider that
 *     {@link LockProvider#joinsCallerTransaction() joins it} runs the attempt inside it, on the calling thread
 * @param listener where to report suspension or loss of the resulting grant
 * @param cancellation how the core stops the attempt while it blocks in the backend (an interrupted caller, a
 *     closing manager)
 */
public record LockRequest(String name, LockOwner owner, Duration lease, Duration maxBlock, boolean transactional,
        GrantListener listener, Cancellation cancellation) {

    /**
     * An attempt that is never cancelled.
     *
     * @param name the validated lock name
     * @param owner who asks
     * @param lease how long a leased grant lasts without renewal
     * @param maxBlock how long the provider may block in the backend
     * @param transactional the lock must last until the caller's transaction completes
     * @param listener where to report suspension or loss of the resulting grant
     */
    public LockRequest(String name, LockOwner owner, Duration lease, Duration maxBlock, boolean transactional,
            GrantListener listener) {
        this(name, owner, lease, maxBlock, transactional, listener, Cancellation.NONE);
    }
}
