package io.txlock.redis;

import io.txlock.LockBackendException;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * One Redis master and the atomic steps run on it, each a single script. Every failure of the server or of the
 * connection is a {@link LockBackendException} naming this node.
 */
final class RedisNode implements AutoCloseable {

    /** What one acquire script answered: the value written, or the holder's remaining lease in ms (negative if unknown). */
    record Answer(String value, long holderPttl) {
        boolean granted() {
            return value != null;
        }
    }

    /** A held lock as read from this node: its value, remaining lease (negative if none) and the server's time. */
    record Stored(String value, long pttl, long serverMillis) {
    }

    private final String address;
    private final UnifiedJedis client;
    private final boolean ownsClient;
    private final ReleaseSubscriber subscriber;
    private final BlockedWaiters blockedWaiters;

    /**
     * @param providerChannel the provider's own channel (see {@link KeySpace#providerChannel})
     */
    RedisNode(String address, UnifiedJedis client, boolean ownsClient, String providerChannel) {
        this.address = address;
        this.client = client;
        this.ownsClient = ownsClient;
        this.subscriber = new ReleaseSubscriber(address, client, providerChannel, this::dropIdleConnections);
        this.blockedWaiters = new BlockedWaiters(client);
    }

    /**
     * @param keys the lock's {@link KeySpace#waiterKeys keys for this attempt}
     * @param placeMillis how long the attempt's place in the lock's queue lasts if it is not granted; 0: not queued
     * @param mayBeQueued whether the attempt may have a place in the queue already (an earlier call queued it)
     */
    Answer acquire(List<String> keys, long leaseMillis, String claim, long placeMillis, boolean mayBeQueued) {
        return call("acquire", keys.get(0), retry -> {
            List<?> reply = (List<?>) LuaScript.ACQUIRE.run(client, keys,
                    List.of(Long.toString(leaseMillis), claim, Long.toString(placeMillis), mayBeQueued || retry ? "1" : "0"));
            return asLong(reply.get(0)) == 1 ? new Answer(asString(reply.get(1)), -1) : new Answer(null, asLong(reply.get(1)));
        });
    }

    /**
     * Blocks until the lock is handed to a queued attempt (pushed on its own list), at most {@code nanos}, once more
     * on a fresh connection if the first broke (a restarted server); see {@link BlockedWaiters}.
     *
     * @return the handed lock's value, or null
     */
    String awaitHandOff(String handedKey, long nanos, HandOff handOff) {
        try {
            try {
                return blockedWaiters.await(handedKey, nanos, handOff);
            } catch (JedisConnectionException broken) {
                dropIdleConnections();
                return blockedWaiters.await(handedKey, nanos, handOff);
            }
        } catch (JedisException e) {
            throw new LockBackendException("redis " + address + ": could not wait on '" + handedKey + "': " + e.getMessage(), e);
        }
    }

    /** @return how many attempts may block on this node at once */
    int blockedWaitersLimit() {
        return blockedWaiters.limit();
    }

    /**
     * @param keys the lock's {@link KeySpace#waiterKeys keys for this attempt}
     * @return whether the lock had been handed to the leaving attempt (it is passed on to the next waiter now)
     */
    boolean leave(List<String> keys, String claim) {
        return call("leave the queue of", keys.get(0), () -> asLong(LuaScript.LEAVE.run(client, keys, List.of(claim))) == 1);
    }

    boolean adopt(String key, String fenceKey, String claim, String finalValue, long token) {
        return call("adopt", key, () -> asLong(LuaScript.ADOPT.run(client, List.of(key, fenceKey),
                List.of(claim, finalValue, Long.toString(token)))) == 1);
    }

    boolean renew(String key, long leaseMillis, String claim) {
        return call("renew", key, () -> asLong(LuaScript.RENEW.run(client, List.of(key),
                List.of(Long.toString(leaseMillis), claim))) == 1);
    }

    /** @param hintChannel where to publish the release for hint subscribers (quorum mode), or "" for nowhere */
    boolean release(List<String> keys, String claim, String hintChannel) {
        return call("release", keys.get(0), () -> asLong(LuaScript.RELEASE.run(client, keys, List.of(claim, hintChannel))) == 1);
    }

    Optional<Stored> inspect(String key) {
        return call("inspect", key, () -> {
            List<?> reply = (List<?>) LuaScript.INSPECT.run(client, List.of(key), List.of());
            return reply == null ? Optional.empty()
                    : Optional.of(new Stored(asString(reply.get(0)), asLong(reply.get(1)), asLong(reply.get(2))));
        });
    }

    /** @param keys {@link KeySpace#scriptKeys}: the lock is handed to the first live waiter of its queue, if any */
    boolean forceRelease(List<String> keys, String channel, long token) {
        return call("force-release", keys.get(0), () -> asLong(LuaScript.FORCE_RELEASE.run(client, keys,
                List.of(channel, Long.toString(token)))) == 1);
    }

    /**
     * @param pattern a {@code SCAN MATCH} pattern
     * @return every key that matches it, iterating {@code SCAN} to its end
     */
    List<String> scan(String pattern) {
        return call("scan", pattern, () -> {
            List<String> keys = new java.util.ArrayList<>();
            redis.clients.jedis.params.ScanParams params = new redis.clients.jedis.params.ScanParams().match(pattern).count(500);
            String cursor = redis.clients.jedis.params.ScanParams.SCAN_POINTER_START;
            do {
                redis.clients.jedis.resps.ScanResult<String> page = client.scan(cursor, params);
                keys.addAll(page.getResult());
                cursor = page.getCursor();
            } while (!redis.clients.jedis.params.ScanParams.SCAN_POINTER_START.equals(cursor));
            return keys;
        });
    }

    /** Runs {@code onRelease} when this node publishes a release on {@code channel}; see {@link ReleaseSubscriber}. */
    AutoCloseable subscribe(String channel, Runnable onRelease) {
        return subscriber.subscribe(channel, onRelease);
    }

    String address() {
        return address;
    }

    @Override
    public void close() {
        subscriber.close();
        blockedWaiters.release();
        if (ownsClient) {
            client.close();
        }
    }

    @Override
    public String toString() {
        return address;
    }

    /**
     * Runs a command, once more on a fresh connection if the first failed on a broken one: after a server
     * restart every pooled connection is broken, and the first use of each would fail although the server is
     * back. Every script is safe to repeat (acquire takes over its owner's own key, the others compare values).
     *
     * @param what what the command does to {@code key}, for the message of its failure
     */
    private <T> T call(String what, String key, Supplier<T> command) {
        return call(what, key, retry -> command.get());
    }

    /** {@link #call(String, String, Supplier)}, telling the command whether it is the repeat of one that may have run. */
    private <T> T call(String what, String key, java.util.function.Function<Boolean, T> command) {
        try {
            try {
                return command.apply(false);
            } catch (JedisConnectionException broken) {
                dropIdleConnections();
                try {
                    return command.apply(true);
                } catch (RuntimeException again) {
                    again.addSuppressed(broken);
                    throw again;
                }
            }
        } catch (JedisException | ClassCastException | IndexOutOfBoundsException e) {
            throw new LockBackendException("redis " + address + ": could not " + what + " '" + key + "': " + e.getMessage(), e);
        }
    }

    /** Closes the pooled idle connections, which a restarted or failed-over server left broken. */
    void dropIdleConnections() {
        blockedWaiters.release();
        if (client instanceof RedisClient pooled) {
            try {
                pooled.getPool().clear();
            } catch (RuntimeException e) {
                // the pool closes broken connections itself as they are used
            }
        }
    }

    private static long asLong(Object reply) {
        return ((Number) reply).longValue();
    }

    private static String asString(Object reply) {
        return reply instanceof byte[] bytes ? new String(bytes, java.nio.charset.StandardCharsets.UTF_8) : (String) reply;
    }
}
