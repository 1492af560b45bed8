package io.txlock.spi;

import java.time.Duration;
import java.util.Objects;

/** The answer of one {@link LockProvider#tryAcquire(LockRequest) attempt}: granted, or held by someone else. */
public final class Attempt {

    private static final Attempt HELD = new Attempt(null, null);

    private final Grant grant;
    private final Duration retryAfter;

    private Attempt(Grant grant, Duration retryAfter) {
        this.grant = grant;
        this.retryAfter = retryAfter;
    }

    /**
     * @param grant the new grant
     * @return a granted attempt
     */
    public static Attempt granted(Grant grant) {
        return new Attempt(Objects.requireNonNull(grant, "grant"), null);
    }

    /** @return an attempt that found the lock held */
    public static Attempt held() {
        return HELD;
    }

    /**
     * @param holderExpiresIn how long the current holder's lease still runs, if known: the lock is worth
     *     trying again no later than that
     * @return an attempt that found the lock held
     */
    public static Attempt heldFor(Duration holderExpiresIn) {
        return new Attempt(null, holderExpiresIn.isNegative() ? Duration.ZERO : holderExpiresIn);
    }

    /** @return whether the lock was granted */
    public boolean isGranted() {
        return grant != null;
    }

    /** @return the grant; {@code null} if held */
    public Grant grant() {
        return grant;
    }

    /** @return the holder's remaining lease if the provider knows it, else {@code null} */
    public Duration retryAfter() {
        return retryAfter;
    }

    @Override
    public String toString() {
        return grant != null ? "granted " + grant.fencingToken() : "held" + (retryAfter != null ? " for " + retryAfter : "");
    }
}
