package io.txlock.core;

import io.txlock.LockScope;
import io.txlock.spi.CallerTransaction;
import io.txlock.spi.LockOwner;

/**
 * Who asks, resolved once per acquire.
 *
 * @param scope TRANSACTION or LEASE
 * @param key equal for the same owner: the thread's key or the transaction's key
 * @param owner the owner as written to the backend
 * @param transaction the caller's transaction in TRANSACTION scope, else null
 * @param thread the calling thread
 */
record Caller(LockScope scope, Object key, LockOwner owner, CallerTransaction transaction, Thread thread) {
}
