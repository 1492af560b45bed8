package io.txlock.redis.modulepath;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.redis.RedisLockProvider;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;

/**
 * The child of {@link RedisModulePathTest}: on the class path, using io.txlock.redis from the module path. Locks a
 * name under its own key prefix on the shared Redis; prints "OK", the provider's module and the token.
 * Arguments: host:port, key prefix.
 */
public final class RedisModulePathMain {

    private RedisModulePathMain() {
    }

    /**
     * @param args host:port, key prefix
     */
    public static void main(String[] args) {
        RedisLockProvider redis = RedisLockProvider.builder(HostAndPort.from(args[0]),
                DefaultJedisClientConfig.builder().build()).keyPrefix(args[1]).build();
        try (redis; LockManager locks = LockManager.builder(redis).build(); LockHandle held = locks.acquire("order:1")) {
            System.out.println("OK " + RedisLockProvider.class.getModule().getName() + " " + held.fencingToken());
        }
    }
}
