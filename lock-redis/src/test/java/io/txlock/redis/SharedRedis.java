package io.txlock.redis;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/** The shared Redis of the machine (never stopped, never flushed) and helpers for tests' own key prefixes. */
final class SharedRedis {

    private SharedRedis() {
    }

    /** @return the shared server, {@code -Dtxlock.test.redis=host:port}, by default 127.0.0.1:6379 */
    static HostAndPort address() {
        return HostAndPort.from(System.getProperty("txlock.test.redis", "127.0.0.1:6379"));
    }

    /** @return short timeouts, so that a dead server fails a test quickly instead of hanging it */
    static JedisClientConfig config() {
        return DefaultJedisClientConfig.builder().connectionTimeoutMillis(2_000).socketTimeoutMillis(2_000).build();
    }

    /** @return a key prefix no other test run uses */
    static String randomPrefix() {
        return "txlock-test:" + UUID.randomUUID().toString().substring(0, 12) + ":";
    }

    static RedisClient client() {
        return RedisClient.builder().hostAndPort(address()).clientConfig(config()).build();
    }

    static RedisLockProvider provider(String prefix) {
        return RedisLockProvider.builder(address(), config()).keyPrefix(prefix).build();
    }

    /** @return how many connections subscribe to {@code channel} on the shared server */
    static long subscribers(String channel) {
        try (Jedis jedis = new Jedis(address(), config())) {
            return jedis.pubsubNumSub(channel).getOrDefault(channel, 0L);
        }
    }

    /** @return CLIENT LIST of the shared server */
    static String clientList() {
        try (Jedis jedis = new Jedis(address(), config())) {
            return jedis.clientList();
        }
    }

    /** @return every key under {@code prefix} (SCAN, not KEYS) */
    static List<String> keys(RedisClient client, String prefix) {
        List<String> found = new ArrayList<>();
        String cursor = ScanParams.SCAN_POINTER_START;
        ScanParams match = new ScanParams().match(prefix + "*").count(500);
        do {
            ScanResult<String> page = client.scan(cursor, match);
            found.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return found;
    }

    static void deleteKeys(RedisClient client, String prefix) {
        List<String> keys = keys(client, prefix);
        if (!keys.isEmpty()) {
            client.del(keys.toArray(String[]::new));
        }
    }

    /** @return a TCP port nobody listens on right now */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** @return the module's build directory, where tests keep their files */
    static Path buildDir() {
        return Path.of(System.getProperty("txlock.test.dir", "target"));
    }
}
