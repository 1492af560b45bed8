package io.txlock.core;

import io.txlock.LockMetrics;
import io.txlock.spi.LockProvider;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The names this manager holds or waits for, each kept by the references of its holding and its waiters and dropped
 * with the last, and their wake-up subscriptions ({@link LockProvider#subscribe}). The map guards each name's
 * reference count (changed only inside its {@code compute}, which may run with the name's mutex held, never the other
 * way round); all else of a name is guarded by its mutex ({@link LocalName}).
 */
final class LocalNames {

    private static final Logger log = LoggerFactory.getLogger(LocalNames.class);

    /** Gives back one reference (the caller holds one, so the name maps to its state), dropping the name with the last. */
    private static final BiFunction<String, LocalName, LocalName> UNREF_ONE = (name, state) -> --state.refs == 0 ? null : state;

    private final ConcurrentHashMap<String, LocalName> names = new ConcurrentHashMap<>();
    private final LockProvider provider;
    private final LockMetrics metrics;
    /** Takes one more reference, making the name's state if there is none: one function, not one per call. */
    private final BiFunction<String, LocalName, LocalName> refOne;

    LocalNames(LockProvider provider, LockMetrics metrics) {
        this.provider = provider;
        this.metrics = metrics;
        this.refOne = (name, state) -> {
            LocalName s = state != null ? state : new LocalName(name, this.metrics);
            s.refs++;
            return s;
        };
    }

    /** @return the name's state, with one more reference the caller must give back through {@link #unref} */
    LocalName ref(String name) {
        if (names.get(name) == null) {
            // a name nobody holds or waits for, the common case: inserted with its reference, as compute would
            // (which first reserves the bin with a node of its own)
            LocalName fresh = new LocalName(name, metrics);
            fresh.refs = 1;
            if (names.putIfAbsent(name, fresh) == null) {
                return fresh;
            }
        }
        return names.compute(name, refOne);
    }

    /** Gives back one reference; the last one drops the name and closes its subscription. */
    void unref(LocalName state) {
        if (names.computeIfPresent(state.name, UNREF_ONE) == null) {
            closeSubscription(state);
        }
    }

    /**
     * With the name's mutex held: gives back one reference, as {@link #unref} does, but leaves the subscription of the
     * last one to the caller, who closes it (with {@link #closeQuietly}) once the mutex is released.
     *
     * @return the subscription of a name this dropped, or null
     */
    AutoCloseable unrefHeld(LocalName state) {
        return names.computeIfPresent(state.name, UNREF_ONE) == null ? state.takeSubscription() : null;
    }

    /** @return the name's state if someone holds or waits for it, else null */
    LocalName get(String name) {
        return names.get(name);
    }

    Collection<LocalName> all() {
        return names.values();
    }

    int size() {
        return names.size();
    }

    /** @return true if this call subscribed, so the caller should try once more at once to close the gap */
    boolean subscribeOnce(LocalName state) {
        state.mutex.lock();
        try {
            if (state.hasSubscription() || state.noHints) {
                return false;
            }
        } finally {
            state.mutex.unlock();
        }
        Optional<AutoCloseable> subscription;
        try {
            subscription = provider.subscribe(state.name, () -> onReleaseHint(state));
        } catch (RuntimeException e) {
            log.debug("no wake-up hint for '{}': {}", state.name, e.toString());
            subscription = Optional.empty();
        }
        return keep(state, subscription);
    }

    private boolean keep(LocalName state, Optional<AutoCloseable> subscription) {
        AutoCloseable surplus;
        state.mutex.lock();
        try {
            if (subscription.isEmpty()) {
                state.noHints = true;
                return false;
            }
            surplus = state.keepSubscription(subscription.get());
        } finally {
            state.mutex.unlock();
        }
        if (surplus != null) {
            closeQuietly(surplus);
            return false;
        }
        if (names.get(state.name) != state) {
            closeSubscription(state);
        }
        return true;
    }

    /** @return whether a wake-up hint is subscribed for the name */
    boolean hinted(LocalName state) {
        state.mutex.lock();
        try {
            return state.hasSubscription();
        } finally {
            state.mutex.unlock();
        }
    }

    private void onReleaseHint(LocalName state) {
        state.mutex.lock();
        try {
            state.wakeHead();
        } finally {
            state.mutex.unlock();
        }
    }

    private void closeSubscription(LocalName state) {
        AutoCloseable subscription;
        state.mutex.lock();
        try {
            subscription = state.takeSubscription();
        } finally {
            state.mutex.unlock();
        }
        if (subscription != null) {
            closeQuietly(subscription);
        }
    }

    static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            log.debug("closing a wake-up subscription failed: {}", e.toString());
        }
    }
}
