package io.txlock.bench;

import io.txlock.LockInfo;
import io.txlock.spi.Attempt;
import io.txlock.spi.Grant;
import io.txlock.spi.LockProvider;
import io.txlock.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A deliberately broken lock: grants every request at once, with tokens from a counter of its own. Two
 * managers (or two JVMs) over it hand out the same tokens. It exists to prove that the checker catches a lock
 * that does not lock.
 */
final class UnsafeLockProvider implements LockProvider {

    private final AtomicLong tokens = new AtomicLong();

    @Override
    public String describe() {
        return "no lock at all (deliberately broken)";
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        long token = tokens.incrementAndGet();
        return Attempt.granted(new UnsafeGrant(request.name(), token));
    }

    @Override
    public void renew(Grant grant, Duration lease) {
        // nothing to renew
    }

    @Override
    public void release(Grant grant) {
        // nothing to release
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return Optional.empty();
    }

    private record UnsafeGrant(String name, long fencingToken) implements Grant {
        @Override
        public boolean leased() {
            return false;
        }
    }
}
