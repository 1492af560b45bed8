package io.txlock.redis;

import io.txlock.spi.Grant;
import java.util.List;

/**
 * A lock granted by {@link RedisLockProvider}: its key, its fencing token and, per node, the values this grant
 * may hold there (empty where it holds nothing; two where a write-back's outcome is unknown).
 */
final class RedisGrant implements Grant {
    private final String name;
    private final String key;
    private final long fencingToken;
    private final List<List<String>> valuesPerNode;

    RedisGrant(String name, String key, long fencingToken, List<List<String>> valuesPerNode) {
        this.name = name;
        this.key = key;
        this.fencingToken = fencingToken;
        this.valuesPerNode = List.copyOf(valuesPerNode);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long fencingToken() {
        return fencingToken;
    }

    /** A Redis lock is a key with an expiry, whatever its scope: the core renews it while it is held. */
    @Override
    public boolean leased() {
        return true;
    }

    String key() {
        return key;
    }

    List<String> values(int node) {
        return valuesPerNode.get(node);
    }

    @Override
    public String toString() {
        return "'" + name + "' token " + fencingToken;
    }
}
