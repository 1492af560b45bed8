package io.txlock.core;

import io.txlock.spi.LockProvider;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The names this manager holds or waits for, each kept by the references of its holding and its waiters and dropped
 * with the last, and their wake-up subscriptions ({@link LockProvider#subscribe}). The map guards each name's
 * reference count (changed only inside its {@code compute}); all else of a name is guarded by its mutex
 * ({@link LocalName}).
 */
final class LocalNames {

    private static final Logger log = LoggerFactory.getLogger(LocalNames.class);

    private final ConcurrentHashMap<String, LocalName> names = new ConcurrentHashMap<>();
    private final LockProvider provider;
    private final LockMetrics metrics;

    LocalNames(LockProvider provider, LockMetrics metrics) {
        this.provider = provider;
        this.metrics = metrics;
    }

    /** @return the name's state, with one more reference the caller must give back through {@link #unref} */
    LocalName ref(String name) {
        return names.compute(name, (k, state) -> {
            LocalName s = state != null ? state : new LocalName(k, metrics);
            s.refs++;
            return s;
        });
    }

    /** Gives back one reference; the last one drops the name and closes its subscription. */
    void unref(LocalName state) {
        boolean[] removed = {false};
        names.computeIfPresent(state.name, (k, s) -> {
            if (s != state) {
                return s;
            }
            if (--s.refs == 0) {
                removed[0] = true;
                return null;
            }
            return s;
        });
        if (removed[0]) {
            closeSubscription(state);
        }
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

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            log.debug("closing a wake-up subscription failed: {}", e.toString());
        }
    }
}
