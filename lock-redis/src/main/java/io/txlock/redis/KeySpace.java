package io.txlock.redis;

/**
 * The Redis names of one key prefix: a key per held lock, one fencing counter, a release channel per lock.
 * Nothing else is stored, so nothing accumulates: lock keys expire or are deleted, the counter is one key.
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

    String releaseChannel(String name) {
        return prefix + "released:" + name;
    }

    /** A channel nobody publishes to: keeps a subscriber connection open while it waits for no lock. */
    String idleChannel() {
        return prefix + "released";
    }
}
