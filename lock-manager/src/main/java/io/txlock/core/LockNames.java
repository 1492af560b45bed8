package io.txlock.core;

/** The rules every lock name follows, whatever the backend. */
public final class LockNames {

    /** Longest name, in Unicode code points. */
    public static final int MAX_LENGTH = 255;

    private LockNames() {
    }

    /**
     * @param name a lock name
     * @return the name
     * @throws IllegalArgumentException naming what is wrong with it
     */
    public static String validate(String name) {
        if (name == null) {
            throw new IllegalArgumentException("lock name must not be null");
        }
        if (name.isBlank()) {
            throw new IllegalArgumentException("lock name must not be blank, was '" + name + "'");
        }
        int length = name.codePointCount(0, name.length());
        if (length > MAX_LENGTH) {
            throw new IllegalArgumentException("lock name must be at most " + MAX_LENGTH + " characters, was " + length
                    + " ('" + name.substring(0, name.offsetByCodePoints(0, 40)) + "…'): shorten it or hash the variable part");
        }
        if (Character.isWhitespace(name.codePointAt(0)) || Character.isWhitespace(name.codePointBefore(name.length()))) {
            throw new IllegalArgumentException("lock name must not start or end with whitespace (some databases ignore"
                    + " trailing spaces when comparing), was '" + name + "'");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == 0) {
                throw new IllegalArgumentException("lock name must not contain the NUL character (index " + i + ")");
            }
            if (Character.isHighSurrogate(c) && (i + 1 == name.length() || !Character.isLowSurrogate(name.charAt(i + 1)))
                    || Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(name.charAt(i - 1)))) {
                throw new IllegalArgumentException("lock name is not valid Unicode: lone surrogate at index " + i);
            }
        }
        return name;
    }
}
