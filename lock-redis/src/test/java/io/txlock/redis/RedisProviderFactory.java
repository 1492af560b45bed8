package io.txlock.redis;

import io.txlock.spi.LockProvider;
import io.txlock.testkit.ProviderFactory;
import java.util.Arrays;
import java.util.List;
import redis.clients.jedis.HostAndPort;

/**
 * Builds a Redis provider in a child JVM from {@code "host:port[,host:port…] keyPrefix"}: one address for a
 * single master, several for quorum mode.
 */
public class RedisProviderFactory implements ProviderFactory {

    /**
     * @param masters the servers
     * @param keyPrefix the provider's key prefix
     * @return the configuration string {@link #create(String)} reads
     */
    static String config(List<HostAndPort> masters, String keyPrefix) {
        return String.join(",", masters.stream().map(HostAndPort::toString).toList()) + " " + keyPrefix;
    }

    @Override
    public LockProvider create(String config) {
        String[] parts = config.split(" ", 2);
        if (parts.length != 2) {
            throw new IllegalArgumentException("expected 'host:port[,host:port…] keyPrefix', was '" + config + "'");
        }
        List<HostAndPort> masters = Arrays.stream(parts[0].split(",")).map(HostAndPort::from).toList();
        RedisLockProvider.Builder builder = masters.size() == 1
                ? RedisLockProvider.builder(masters.get(0), SharedRedis.config())
                : RedisLockProvider.quorum(masters, SharedRedis.config());
        return builder.keyPrefix(parts[1]).build();
    }
}
