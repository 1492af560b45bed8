/**
 * txlock's Redis provider, {@link io.txlock.redis.RedisLockProvider}, on Jedis. Its API names txlock's SPI and
 * Jedis' connection types, so a user reads both through this module. The Lua scripts are read from this module's
 * own package.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.txlock.redis {
    requires transitive io.txlock;
    requires transitive redis.clients.jedis;
    requires org.slf4j;

    exports io.txlock.redis;
}
