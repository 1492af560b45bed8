package io.txlock.redis;

import redis.clients.jedis.Connection;

/**
 * One waiting attempt's blocked {@code BLPOP} on its own list, and how it is cancelled: by closing the socket of the
 * connection it blocks on (that connection is then dropped, not pooled again). A cancel that comes before the
 * attempt blocks makes it not block at all.
 */
final class HandOff {

    private Connection blockedOn;
    private boolean cancelled;

    /** Ends the wait; may run on any thread, more than once; does not block. */
    synchronized void cancel() {
        cancelled = true;
        if (blockedOn != null) {
            try {
                blockedOn.forceDisconnect();
            } catch (java.io.IOException | RuntimeException e) {
                // the socket is closed all the same, or was already
            }
        }
    }

    synchronized boolean cancelled() {
        return cancelled;
    }

    /** @return whether the attempt may block on {@code connection} (it was not cancelled) */
    synchronized boolean blocksOn(Connection connection) {
        if (cancelled) {
            return false;
        }
        blockedOn = connection;
        return true;
    }

    synchronized void unblocked() {
        blockedOn = null;
    }
}
