package io.txlock.zookeeper;

import io.txlock.spi.Grant;
import io.txlock.spi.GrantListener;

/**
 * A lock held through one ephemeral sequential node. It lives as long as the ZooKeeper session (not leased).
 *
 * @param name the lock name
 * @param path the holder's node, unique for ever (Curator's protection prefix is a random UUID)
 * @param fencingToken the node's {@code czxid}: the ZooKeeper transaction id that created it
 * @param sessionId the session the node lives in (its {@code ephemeralOwner})
 * @param listener where the core hears of suspension and loss
 * @param clock until when that session is known to be alive
 */
record ZooKeeperGrant(String name, String path, long fencingToken, long sessionId, GrantListener listener,
        SessionClock clock) implements Grant {

    @Override
    public boolean leased() {
        return false;
    }

    /** In force while its session is known to be alive: see {@link SessionClock}. */
    @Override
    public boolean knownInForceAt(long nanoTime) {
        return clock.aliveAt(sessionId, nanoTime);
    }

    @Override
    public String toString() {
        return "'" + name + "' at " + path + " token " + fencingToken;
    }
}
