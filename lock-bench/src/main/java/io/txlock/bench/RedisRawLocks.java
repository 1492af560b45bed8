package io.txlock.bench;

import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SetParams;

/**
 * Redis's bare lock, without txlock, each session on a connection of its own. The cycle is the least a safe
 * Redis lock costs: {@code SET key value NX PX} and a Lua compare-and-delete (retried after 1 ms while another
 * holder's key exists). Redis has no blocking lock, so the handoff floor is its one blocking primitive used as
 * a lock: a list holding one token, taken with {@code BLPOP} and given back with {@code LPUSH}, which wakes
 * exactly one waiter, first come first served.
 */
final class RedisRawLocks implements RawLocks {

    private static final String COMPARE_AND_DELETE =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
    private static final long LEASE_MILLIS = 30_000;

    private final RedisBackend backend;

    RedisRawLocks(RedisBackend backend) {
        this.backend = backend;
    }

    @Override
    public String describeCycle() {
        return "SET NX PX + Lua compare-and-delete";
    }

    @Override
    public String describeHandoff() {
        return "BLPOP on a one-token list, woken by the holder's LPUSH";
    }

    /**
     * The one-token list has no lease and no fencing (a holder that dies keeps the token for ever): the handoff scenario
     * also measures the SET NX PX cycle, polling every 1 ms while another holds the key, as its safe floor.
     */
    @Override
    public boolean safeHandoffFloor() {
        return true;
    }

    @Override
    public void prepare(Collection<String> names) {
        try (Jedis jedis = backend.connect()) {
            for (String name : names) {
                String queue = queue(name);
                jedis.del(queue);
                jedis.lpush(queue, "token");
            }
        }
    }

    private String queue(String name) {
        return backend.prefix() + "raw-queue:" + name;
    }

    @Override
    public Session cycleSession() {
        Jedis jedis = backend.connect();
        String sha = jedis.scriptLoad(COMPARE_AND_DELETE);
        String me = UUID.randomUUID().toString();
        return new Session() {
            private String held;

            @Override
            public void lock(String name) {
                String key = backend.prefix() + "raw:" + name;
                while (!"OK".equals(jedis.set(key, me, SetParams.setParams().nx().px(LEASE_MILLIS)))) {
                    LockSupport.parkNanos(1_000_000);
                }
                held = key;
            }

            @Override
            public void unlock() {
                jedis.evalsha(sha, List.of(held), List.of(me));
            }

            @Override
            public void close() {
                jedis.close();
            }
        };
    }

    @Override
    public Session blockingSession() {
        Jedis jedis = backend.connect();
        return new Session() {
            private String held;

            @Override
            public void lock(String name) {
                String queue = queue(name);
                jedis.blpop(0, queue);
                held = queue;
            }

            @Override
            public void unlock() {
                jedis.lpush(held, "token");
            }

            @Override
            public void close() {
                jedis.close();
            }
        };
    }

    @Override
    public void close() {
        // each session closed its own connection
    }
}
