package io.txlock.redis;

import java.util.List;

/**
 * The Redis names of one key prefix: a key per held lock, one fencing counter, a queue of waiters per lock
 * (a list, there only while someone waits), a list per waiting attempt (where the lock is pushed when it
 * is handed to it), a release channel per lock (quorum mode's hints) and a channel per provider (its subscriber's
 * own). Nothing accumulates: lock keys expire or are deleted, queues expire with their last waiter's place, a
 * waiter's list is deleted when it leaves or expires with the lease it was handed, the counter is one key.
 */
record KeySpace(String prefix) {

    private static final int MAX_PREFIX_LENGTH = 200;

    KeySpace {
        validate(prefix);
    }

    static void validate(String prefix) {
        if (prefix == null || prefix.isEmpty()) {
            throw new IllegalArgumentException("keyPrefix must not be empty: use for example \"txlock:\"");
        }
        if (prefix.length() > MAX_PREFIX_LENGTH) {
            throw new IllegalArgumentException("keyPrefix must be at most " + MAX_PREFIX_LENGTH + " characters, was "
                    + prefix.length());
        }
        if (prefix.chars().anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
            throw new IllegalArgumentException("keyPrefix must not contain whitespace or control characters, was '"
                    + prefix + "'");
        }
    }

    String lockKey(String name) {
        return prefix + "lock:" + name;
    }

    /** @return a {@code SCAN MATCH} pattern for the lock keys of names that start with {@code namePrefix} */
    String lockKeyPattern(String namePrefix) {
        return globEscaped(lockKey(namePrefix)) + "*";
    }

    /** @return the lock name of a key made by {@link #lockKey} */
    String nameOf(String lockKey) {
        return lockKey.substring(lockKey("").length());
    }

    private static String globEscaped(String text) {
        StringBuilder out = new StringBuilder(text.length() + 8);
        for (char c : text.toCharArray()) {
            if ("*?[]\\^".indexOf(c) >= 0) {
                out.append('\\');
            }
            out.append(c);
        }
        return out.toString();
    }

    String fenceKey() {
        return prefix + "fence";
    }

    String queueKey(String name) {
        return prefix + "queue:" + name;
    }

    /** @return the keys of the scripts that grant, release or queue for a lock, in their order (see queue.lua) */
    List<String> scriptKeys(String name) {
        return List.of(lockKey(name), fenceKey(), queueKey(name));
    }

    /**
     * @param claim an attempt's claim ({@link LockValue#newClaim})
     * @return the attempt's own list, on which it blocks while it waits in the lock's queue
     */
    String handedKey(String claim) {
        int space = claim.indexOf(' ');
        return prefix + "handed:" + (space < 0 ? claim : claim.substring(0, space));
    }

    /** @return the keys of the scripts that queue an attempt or take it out of the queue: {@link #scriptKeys} and its list */
    List<String> waiterKeys(String name, String claim) {
        return List.of(lockKey(name), fenceKey(), queueKey(name), handedKey(claim));
    }

    /** @return the attempt's own list, the last of {@link #waiterKeys} */
    static String handedKeyOf(List<String> waiterKeys) {
        return waiterKeys.get(3);
    }

    /** @return the {@link #scriptKeys} that {@link #waiterKeys} start with */
    static List<String> scriptKeysOf(List<String> waiterKeys) {
        return waiterKeys.subList(0, 3);
    }

    String releaseChannel(String name) {
        return prefix + "released:" + name;
    }

    /**
     * @param providerId a provider's random id
     * @return the provider's own channel, which its subscriber connection (quorum mode's hints) keeps subscribed as
     *     long as it lives: its confirmation says the connection is live. Under {@code <prefix>released}, like the release channels,
     *     so that one ACL channel pattern covers both; a lock's release channel has a colon where this has {@code @}.
     */
    String providerChannel(String providerId) {
        return prefix + "released@" + providerId;
    }
}
