package io.txlock.jdbc;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * How {@link io.txlock.Strategy#ADVISORY} names a lock in the database. Fixed for good: nodes of different txlock
 * versions must map a name to the same key, or both could hold it at once. The key is made from
 * {@code <namespace>.<table>:<name>}, where the namespace is the schema (PostgreSQL) or database (MySQL/MariaDB)
 * the lock table is in, so that providers over different lock tables, like their rows, never share a lock, and all
 * providers over one table agree.
 * Two names whose keys collide share one lock: one waits for the other, neither is granted while the other holds.
 */
final class AdvisoryKeys {

    /** The longest user-lock name MySQL takes (MariaDB takes 192). */
    static final int MAX_USER_LOCK_NAME = 64;

    private AdvisoryKeys() {
    }

    /**
     * @param namespace the lock table's schema or database, or null if there is none
     * @param table the lock table
     * @param name the lock name
     * @return the text the key is made from
     */
    static String keyText(String namespace, String table, String name) {
        return (namespace == null ? "" : namespace) + "." + table + ":" + name;
    }

    /**
     * @param keyText from {@link #keyText}
     * @return PostgreSQL's 64-bit advisory key: the first 8 bytes of SHA-256 of the UTF-8 text, big-endian, signed
     */
    static long postgresKey(String keyText) {
        byte[] hash = sha256(keyText);
        long key = 0;
        for (int i = 0; i < 8; i++) {
            key = key << 8 | hash[i] & 0xFF;
        }
        return key;
    }

    /**
     * @param keyText from {@link #keyText}
     * @return the MySQL/MariaDB user-lock name: the text itself if it is at most 64 characters of lower-case ASCII
     *     letters, digits and {@code . _ : / -}; else the 64 lower-case hex digits of its SHA-256 (UTF-8), which
     *     never equal such a text, as every key text holds a {@code :}
     */
    static String userLockName(String keyText) {
        return plain(keyText) ? keyText : HexFormat.of().formatHex(sha256(keyText));
    }

    /**
     * @return whether {@code text} may be a user-lock name as it stands: 1 to 64 characters without case (MySQL
     *     documents its user-lock names as case-insensitive, so "A" and "a" would share a lock) and without multi-byte
     *     encodings, {@code [a-z0-9._:/-]}
     */
    static boolean plain(String text) {
        int n = text.length();
        if (n == 0 || n > MAX_USER_LOCK_NAME) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char ch = text.charAt(i);
            if (!(ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '.' || ch == '_' || ch == ':' || ch == '/' || ch == '-')) {
                return false;
            }
        }
        return true;
    }

    private static byte[] sha256(String text) {
        return SHA_256.get().digest(text.getBytes(StandardCharsets.UTF_8));
    }

    /** A digest per thread: looking one up costs more than hashing a lock name. */
    private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    });
}
