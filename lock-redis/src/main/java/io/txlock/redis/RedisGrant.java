package io.txlock.redis;

import io.txlock.spi.Grant;
import java.util.BitSet;
import java.util.List;

/**
 * A lock granted by {@link RedisLockProvider}: its key (with the other keys of its scripts), its fencing token, its claim (what its key holds after the
 * token on every master, see {@link LockValue}) and the masters that may hold it: those that granted it, and
 * those whose answer was lost, which may have granted it too. Release and renewal go to all of those.
 */
final class RedisGrant implements Grant {
    private final String name;
    private final List<String> scriptKeys;
    private final long fencingToken;
    private final String claim;
    private final BitSet mayHold;

    /** @param scriptKeys the lock's {@link KeySpace#scriptKeys}, the lock key first */
    RedisGrant(String name, List<String> scriptKeys, long fencingToken, String claim, BitSet mayHold) {
        this.name = name;
        this.scriptKeys = scriptKeys;
        this.fencingToken = fencingToken;
        this.claim = claim;
        this.mayHold = (BitSet) mayHold.clone();
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
        return scriptKeys.get(0);
    }

    /** @return the keys of the lock's release script: {@link KeySpace#scriptKeys} */
    List<String> scriptKeys() {
        return scriptKeys;
    }

    String claim() {
        return claim;
    }

    boolean mayHold(int node) {
        return mayHold.get(node);
    }

    boolean mayHoldAny() {
        return !mayHold.isEmpty();
    }

    @Override
    public String toString() {
        return "'" + name + "' token " + fencingToken;
    }
}
