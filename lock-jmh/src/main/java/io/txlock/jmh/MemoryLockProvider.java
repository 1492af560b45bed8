package io.txlock.jmh;

import io.txlock.LockInfo;
import io.txlock.LockNotHeldException;
import io.txlock.spi.Attempt;
import io.txlock.spi.Grant;
import io.txlock.spi.LockProvider;
import io.txlock.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A provider whose backend is a map in this JVM: each step is one atomic map operation, so a benchmark over it
 * measures the core and almost nothing else. Grants are leased (the core keeps their lease as it does a row lock's or
 * a Redis key's) but never expire by themselves; fencing tokens come from one counter. Thread safe; for one JVM only.
 */
public final class MemoryLockProvider implements LockProvider {

    private final ConcurrentHashMap<String, MemoryGrant> held = new ConcurrentHashMap<>();
    private final AtomicLong tokens = new AtomicLong();

    /** A new provider, with no lock held. */
    public MemoryLockProvider() {
    }

    @Override
    public String describe() {
        return "in-memory";
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        if (held.containsKey(request.name())) {
            return Attempt.held();
        }
        MemoryGrant grant = new MemoryGrant(request.name(), tokens.incrementAndGet(), request.owner().id(),
                request.owner().host());
        return held.putIfAbsent(request.name(), grant) == null ? Attempt.granted(grant) : Attempt.held();
    }

    @Override
    public void renew(Grant grant, Duration lease) {
        if (held.get(grant.name()) != grant) {
            throw new LockNotHeldException("lock '" + grant.name() + "' token " + grant.fencingToken() + " is not held");
        }
    }

    @Override
    public void release(Grant grant) {
        if (!held.remove(grant.name(), grant)) {
            throw new LockNotHeldException("lock '" + grant.name() + "' token " + grant.fencingToken() + " is not held");
        }
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        MemoryGrant g = held.get(name);
        return g == null ? Optional.empty()
                : Optional.of(new LockInfo(name, g.ownerHost(), g.ownerId(), g.fencingToken(), null, null, 1));
    }

    /**
     * One grant: the map holds it while it is held.
     *
     * @param name the lock name
     * @param fencingToken its token
     * @param ownerId the owner's id
     * @param ownerHost the owner's host
     */
    public record MemoryGrant(String name, long fencingToken, String ownerId, String ownerHost) implements Grant {
        @Override
        public boolean leased() {
            return true;
        }
    }
}
