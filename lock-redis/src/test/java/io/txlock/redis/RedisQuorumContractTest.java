package io.txlock.redis;

import io.txlock.spi.LockProvider;
import io.txlock.testkit.LockContractTest;
import io.txlock.testkit.ProviderRecipe;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;

/** The contract kit in quorum mode over three private masters. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisQuorumContractTest extends LockContractTest {

    private final List<RedisServer> servers = new ArrayList<>();
    private final String prefix = SharedRedis.randomPrefix();

    RedisQuorumContractTest() {
        for (int i = 0; i < 3; i++) {
            servers.add(RedisServer.start());
        }
    }

    @AfterAll
    void stopServers() {
        servers.forEach(RedisServer::close);
    }

    private List<HostAndPort> masters() {
        return servers.stream().map(RedisServer::address).toList();
    }

    @Override
    protected LockProvider newProvider() {
        return RedisLockProvider.quorum(masters(), SharedRedis.config()).keyPrefix(prefix).build();
    }

    @Override
    protected ProviderRecipe recipe() {
        return new ProviderRecipe(RedisProviderFactory.class, RedisProviderFactory.config(masters(), prefix));
    }

    @Override
    protected LockProvider newUnreachableProvider() {
        Set<HostAndPort> closed = new LinkedHashSet<>();
        while (closed.size() < 3) {
            closed.add(new HostAndPort("127.0.0.1", SharedRedis.freePort()));
        }
        return RedisLockProvider.quorum(List.copyOf(closed), DefaultJedisClientConfig.builder().connectionTimeoutMillis(500)
                .socketTimeoutMillis(500).build()).build();
    }
}
