package io.txlock.core;

import io.txlock.LockBackendException;
import io.txlock.LockException;
import io.txlock.LockNotHeldException;
import io.txlock.spi.Attempt;
import io.txlock.spi.Grant;
import io.txlock.spi.LockProvider;
import io.txlock.spi.LockRequest;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provider as the core calls it: a failure that is no {@link LockException} (nor a misuse) becomes a
 * {@link LockBackendException} saying what could not be done. Holds no state of its own.
 */
final class Backend {

    private static final Logger log = LoggerFactory.getLogger(Backend.class);

    final LockProvider provider;

    Backend(LockProvider provider) {
        this.provider = provider;
    }

    /**
     * Calls the provider; a failure says "could not {@code verb} '{@code name}'{@code tail}", a message made only then.
     */
    <T> T call(Supplier<T> call, String verb, String name, String tail) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            throw failure(e, verb, name, tail);
        }
    }

    <T> T call(Supplier<T> call, String verb, String name) {
        return call(call, verb, name, "");
    }

    void run(Runnable call, String verb, String name, String tail) {
        try {
            call.run();
        } catch (RuntimeException e) {
            throw failure(e, verb, name, tail);
        }
    }

    void run(Runnable call, String verb, String name) {
        run(call, verb, name, "");
    }

    /**
     * The provider's attempt, a failure said as by {@link #call}: on the hot path, so without a lambda made per call.
     */
    Attempt tryAcquire(LockRequest request) {
        try {
            return provider.tryAcquire(request);
        } catch (RuntimeException e) {
            throw failure(e, "acquire", request.name(), "");
        }
    }

    /** The provider's release of {@code grant} of {@code name}, a failure said as by {@link #run}, without a lambda. */
    void release(Grant grant, String name) {
        try {
            provider.release(grant);
        } catch (RuntimeException e) {
            throw failure(e, "release", name, "");
        }
    }

    private RuntimeException failure(RuntimeException e, String verb, String name, String tail) {
        if (e instanceof LockException || e instanceof IllegalArgumentException || e instanceof IllegalStateException) {
            return e;
        }
        return new LockBackendException(provider.describe() + ": could not " + verb + " '" + name + "'" + tail + ": " + e, e);
    }

    /** Releases a grant whose owner no longer counts on it: a failure is only logged, its lease will run out. */
    void releaseQuietly(Grant grant, String why) {
        try {
            provider.release(grant);
        } catch (LockNotHeldException e) {
            log.debug("releasing '{}' ({}): already gone", grant.name(), why);
        } catch (RuntimeException e) {
            log.warn("releasing '{}' ({}) failed; its lease will run out: {}", grant.name(), why, e.toString());
        }
    }

    /** Gives back a grant no holding took over; one that ends with the caller's transaction ends with it. */
    void giveBack(Grant grant, String why) {
        if (!grant.endsWithTransaction()) {
            releaseQuietly(grant, why);
        }
    }

    String describe() {
        return provider.describe();
    }
}
