package io.txlock.etcd;

import io.etcd.jetcd.ByteSequence;
import io.txlock.spi.LockOwner;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * Where locks live in etcd: lock {@code name} is the key range {@code <prefix><encoded name>/}, and each contender
 * one key {@code <prefix><encoded name>/<lease id as 16 hex digits>} in it, whose value names its owner.
 *
 * <p>Names are data: the encoded name is the percent-encoding of the name's UTF-8 bytes, in which letters, digits
 * and {@code - _ . ~ : @ + = ,} stay readable (so {@code order:42} stays {@code order:42} in {@code etcdctl}) and
 * every other byte, {@code %} and {@code /} included, becomes {@code %XX}. An encoded name therefore never holds a
 * {@code /}, and the range of one name never contains the keys of another.
 */
final class EtcdKeys {

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private final String prefix;

    /** @param prefix a key prefix ending in {@code /} */
    EtcdKeys(String prefix) {
        this.prefix = prefix;
    }

    String prefix() {
        return prefix;
    }

    /** @return the key range of the contenders for {@code name}: every key that starts with this */
    ByteSequence range(String name) {
        return bytes(prefix + encode(name) + "/");
    }

    /** @return the key of the contender for {@code name} bound to lease {@code leaseId} */
    ByteSequence key(String name, long leaseId) {
        return bytes(prefix + encode(name) + "/" + String.format("%016x", leaseId));
    }

    /** @return the keys of every contender for a name that starts with {@code namePrefix}: every key that starts with this */
    ByteSequence namesStartingWith(String namePrefix) {
        return bytes(prefix + encode(namePrefix));
    }

    /**
     * @param key a contender's key, made by {@link #key}
     * @return its lock name, or null if it is no such key
     */
    String nameOf(String key) {
        int slash = key.indexOf('/', prefix.length());
        if (!key.startsWith(prefix) || slash < 0) {
            return null;
        }
        String encoded = key.substring(prefix.length(), slash);
        java.io.ByteArrayOutputStream utf8 = new java.io.ByteArrayOutputStream(encoded.length());
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c == '%' && i + 2 < encoded.length()) {
                utf8.write(Integer.parseInt(encoded.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                utf8.write(c);
            }
        }
        return utf8.toString(StandardCharsets.UTF_8);
    }

    /**
     * @param name a lock name
     * @return its encoded form: one key segment that only {@code name} maps to
     */
    static String encode(String name) {
        byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(utf8.length + 8);
        for (byte value : utf8) {
            int b = value & 0xFF;
            if (keepsAsIs(b)) {
                out.append((char) b);
            } else {
                out.append('%').append(HEX[b >> 4]).append(HEX[b & 0xF]);
            }
        }
        return out.toString();
    }

    private static boolean keepsAsIs(int b) {
        return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || "-_.~:@+=,".indexOf(b) >= 0;
    }

    /** @return the value of a contender's key: owner host, owner id and when it was written, one per line */
    static ByteSequence ownerValue(LockOwner owner, Instant at) {
        return bytes(owner.host() + "\n" + owner.id() + "\n" + at.toEpochMilli());
    }

    /** @return the owner in a value written by {@link #ownerValue}; unknown parts are empty or null */
    static Owner owner(ByteSequence value) {
        String[] lines = value.toString(StandardCharsets.UTF_8).split("\n", 3);
        Instant since = null;
        if (lines.length == 3) {
            try {
                since = Instant.ofEpochMilli(Long.parseLong(lines[2]));
            } catch (NumberFormatException e) {
                since = null;
            }
        }
        return new Owner(lines[0], lines.length > 1 ? lines[1] : "", since);
    }

    static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    /** A holder as written in its key. */
    record Owner(String host, String id, Instant since) {
    }
}
