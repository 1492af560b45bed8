package io.txlock.redis;

import io.txlock.spi.LockOwner;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a lock key holds: {@code "<token> <since ms> <claim>"}, where the claim is
 * {@code "<grant id> <url-encoded host> <owner id>"}. The acquire script writes the token and the time; the client
 * chooses the claim, a new grant id per attempt, so it can free or extend its key on a master whose answer it never
 * got, and never touches a key of another grant. Release and renewal compare the claim.
 */
record LockValue(long token, long sinceMillis, String grantId, String host, String ownerId) {

    /** This JVM's random part of every grant id: grant ids of different JVMs differ in it. */
    private static final String GRANT_ID_BASE = UUID.randomUUID() + ".";
    /** The sequence part of this JVM's grant ids: no two attempts share one. */
    private static final AtomicLong GRANT_SEQUENCE = new AtomicLong();
    /** The last host encoded: every owner of a manager has the same host. */
    private static volatile EncodedHost lastHost = new EncodedHost("", "");

    private record EncodedHost(String host, String encoded) {
    }

    /**
     * @return a new claim for one attempt of {@code owner}: {@code "<grant id> <url-encoded host> <owner id>"}, the grant
     *     id unique among all attempts of all JVMs: a random UUID drawn once per JVM and a sequence number
     */
    static String newClaim(LockOwner owner) {
        return GRANT_ID_BASE + Long.toString(GRANT_SEQUENCE.incrementAndGet(), 36) + " " + encoded(owner.host()) + " "
                + owner.id();
    }

    private static String encoded(String host) {
        EncodedHost last = lastHost;
        if (!last.host().equals(host)) {
            last = new EncodedHost(host, URLEncoder.encode(host, StandardCharsets.UTF_8));
            lastHost = last;
        }
        return last.encoded();
    }

    /**
     * @param value a lock key's value
     * @return its fencing token, what it starts with
     * @throws IllegalArgumentException if txlock did not write it
     */
    static long tokenOf(String value) {
        int space = value.indexOf(' ');
        try {
            return Long.parseLong(value, 0, space < 0 ? value.length() : space, 10);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a txlock lock value: '" + value + "'", e);
        }
    }

    /**
     * @param value a lock key's value
     * @return the parsed value
     * @throws IllegalArgumentException if txlock did not write it
     */
    static LockValue parse(String value) {
        String[] parts = value.split(" ", 5);
        if (parts.length != 5) {
            throw new IllegalArgumentException("not a txlock lock value: '" + value + "'");
        }
        try {
            return new LockValue(Long.parseLong(parts[0]), Long.parseLong(parts[1]), parts[2],
                    URLDecoder.decode(parts[3], StandardCharsets.UTF_8), parts[4]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a txlock lock value: '" + value + "'", e);
        }
    }

    /**
     * @param value a lock key's value
     * @return its claim, what the scripts compare: everything after the token and the time (the whole value if
     *     txlock did not write it)
     */
    static String claimOf(String value) {
        int first = value.indexOf(' ');
        int second = first < 0 ? -1 : value.indexOf(' ', first + 1);
        return second < 0 ? value : value.substring(second + 1);
    }
}
