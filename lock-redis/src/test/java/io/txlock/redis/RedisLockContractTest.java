package io.txlock.redis;

import io.txlock.spi.LockProvider;
import io.txlock.testkit.LockContractTest;
import io.txlock.testkit.ProviderRecipe;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/** The contract kit on the shared Redis, one master, under a key prefix of its own. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisLockContractTest extends LockContractTest {

    private final String prefix = SharedRedis.randomPrefix();

    @AfterAll
    void deleteKeys() {
        try (RedisClient redis = SharedRedis.client()) {
            SharedRedis.deleteKeys(redis, prefix);
        }
    }

    @Override
    protected LockProvider newProvider() {
        return SharedRedis.provider(prefix);
    }

    @Override
    protected ProviderRecipe recipe() {
        return new ProviderRecipe(RedisProviderFactory.class, RedisProviderFactory.config(List.of(SharedRedis.address()), prefix));
    }

    @Override
    protected LockProvider newUnreachableProvider() {
        return RedisLockProvider.builder(new HostAndPort("127.0.0.1", SharedRedis.freePort()),
                DefaultJedisClientConfig.builder().connectionTimeoutMillis(500).socketTimeoutMillis(500).build()).build();
    }
}
