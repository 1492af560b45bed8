package io.txlock.zookeeper;

import io.txlock.spi.Grant;
import io.txlock.spi.GrantListener;

/**
 * A lock held through one ephemeral sequential node. It lives as long as the ZooKeeper session (not leased).
 *
 * @param name the lock name
 * @param path the holder's node, unique for ever (Curator's protection prefix is a random UUID)
 * @param fencingToken the node's {@code czxid}: the ZooKeeper transaction id that created it
 * @param listener where the core hears of suspension and loss
 */
record ZooKeeperGrant(String name, String path, long fencingToken, GrantListener listener) implements Grant {

    @Override
    public boolean leased() {
        return false;
    }

    @Override
    public String toString() {
        return "'" + name + "' at " + path + " token " + fencingToken;
    }
}
