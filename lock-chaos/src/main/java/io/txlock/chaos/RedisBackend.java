package io.txlock.chaos;

import io.txlock.redis.RedisLockProvider;
import io.txlock.servers.PrivateRedis;
import io.txlock.servers.PrivateServer;
import io.txlock.spi.LockProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;

/**
 * Redis, one master: a private {@code redis-server} without persistence, killed with {@code kill -9} and started
 * again empty. Holder configuration: {@code <host:port> <key prefix>}.
 */
final class RedisBackend implements ServerFaults {

    private int port;
    private PrivateRedis server;

    /** For {@link Backends} and holder JVMs. */
    RedisBackend() {
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public List<String> strategies() {
        return List.of("SET_NX_PX");
    }

    @Override
    public void start(Path dir) throws Exception {
        server = PrivateRedis.start(dir);
        port = server.port();
    }

    private static JedisClientConfig clientConfig() {
        return DefaultJedisClientConfig.builder().connectionTimeoutMillis(1000).socketTimeoutMillis(1000).build();
    }

    @Override
    public String holderConfig(String strategy, String runId) {
        return "127.0.0.1:" + port + " chaos-" + runId + ":";
    }

    @Override
    public LockProvider provider(String config) {
        String[] parts = config.split(" ", 2);
        return RedisLockProvider.builder(HostAndPort.from(parts[0]), clientConfig()).keyPrefix(parts[1]).build();
    }

    @Override
    public PrivateServer server() {
        return server;
    }

    /**
     * The README's limit: a master that restarts without persistence has forgotten the lock, and its holder learns it
     * at its next renewal, within the lease.
     */
    @Override
    public Duration exclusionGapAfterBackendFault(String strategy, Duration lease) {
        return lease;
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }
}
