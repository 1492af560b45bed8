package io.txlock.redis;

import io.txlock.servers.Os;
import io.txlock.servers.PrivateRedis;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.UUID;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;

/**
 * A private {@code redis-server} ({@link PrivateRedis}) with its own directory under target/, no persistence: for
 * tests that kill, restart or configure a server. Never the shared one.
 */
final class RedisServer implements AutoCloseable {

    private final PrivateRedis redis;
    private final Path dir;

    private RedisServer(PrivateRedis redis, Path dir) {
        this.redis = redis;
        this.dir = dir;
    }

    static RedisServer start(String... extraArgs) {
        return start(DefaultJedisClientConfig.builder().build(), extraArgs);
    }

    /**
     * @param pingConfig how to reach the server to see that it is up (password, TLS)
     * @param extraArgs more {@code redis-server} options; {@code {port}} stands for its port
     */
    static RedisServer start(JedisClientConfig pingConfig, String... extraArgs) {
        Path dir = SharedRedis.buildDir().resolve("redis-servers").resolve(UUID.randomUUID().toString().substring(0, 8));
        try {
            return new RedisServer(PrivateRedis.start(dir, port -> () -> {
                try (Jedis jedis = new Jedis(new HostAndPort("127.0.0.1", port), pingConfig)) {
                    return "PONG".equals(jedis.ping());
                }
            }, extraArgs), dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int port() {
        return redis.port();
    }

    HostAndPort address() {
        return new HostAndPort("127.0.0.1", redis.port());
    }

    /** Starts the server again on its port (killing it first if it runs), and returns when it answers PING. */
    void restart() {
        redis.process().restart();
    }

    /** SIGSTOP for {@code pause}, then SIGCONT: the server keeps its connections and answers nothing meanwhile. */
    void pause(java.time.Duration pause) throws InterruptedException {
        redis.process().pause(pause);
    }

    /** kill -9: the server loses everything it held in memory. */
    void kill() {
        redis.process().crash();
    }

    @Override
    public void close() {
        redis.close();
        Os.deleteTree(dir);
    }

    @Override
    public String toString() {
        return redis.toString();
    }
}
