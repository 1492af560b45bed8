package io.txlock.redis;

import io.txlock.spi.LockOwner;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * What a lock key holds: {@code "<token> <since ms> <url-encoded host> <owner id>"}, written by the acquire
 * script. The whole string identifies one grant (the token makes it unique), so release and renewal compare it.
 */
record LockValue(long token, long sinceMillis, String host, String ownerId) {

    /** @return the owner part the acquire script appends: {@code "<url-encoded host> <owner id>"} */
    static String ownerPart(LockOwner owner) {
        return URLEncoder.encode(owner.host(), StandardCharsets.UTF_8) + " " + owner.id();
    }

    /**
     * @param value a lock key's value
     * @return the parsed value
     * @throws IllegalArgumentException if txlock did not write it
     */
    static LockValue parse(String value) {
        String[] parts = value.split(" ", 4);
        if (parts.length != 4) {
            throw new IllegalArgumentException("not a txlock lock value: '" + value + "'");
        }
        try {
            return new LockValue(Long.parseLong(parts[0]), Long.parseLong(parts[1]),
                    URLDecoder.decode(parts[2], StandardCharsets.UTF_8), parts[3]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a txlock lock value: '" + value + "'", e);
        }
    }

    /** @return the value as stored */
    String encoded() {
        return token + " " + sinceMillis + " " + URLEncoder.encode(host, StandardCharsets.UTF_8) + " " + ownerId;
    }
}
