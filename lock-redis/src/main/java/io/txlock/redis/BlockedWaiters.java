package io.txlock.redis;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.BuilderFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.util.KeyValue;
import redis.clients.jedis.util.Pool;

/**
 * The waiting attempts of one provider that block on one master, each in a {@code BLPOP} on its own list, each on a
 * connection of its own taken from the client's pool, at most {@link #limit()} at once so that the pool keeps
 * connections for grants, releases and renewals. An attempt beyond the limit waits for one of them to end, looking
 * in Redis between those waits whether the lock was handed to it (see {@link FairWait}).
 *
 * <p>With a client that has no pool of its own to take a connection from (a {@link UnifiedJedis} that is not a
 * {@link RedisClient}), the attempt blocks through the client, and a cancel ends its wait only when the
 * {@code BLPOP}'s timeout (at most {@link FairWait#RECHECK}) runs out.
 */
final class BlockedWaiters {

    /** Blocked waiters of a pool without a limit of its own, or of a client without a pool. */
    static final int UNBOUNDED_POOL_LIMIT = 16;

    private final UnifiedJedis client;
    private final Pool<Connection> pool;
    private final int limit;
    private final Semaphore permits;

    BlockedWaiters(UnifiedJedis client) {
        this.client = client;
        this.pool = client instanceof RedisClient pooled ? pooled.getPool() : null;
        int maxTotal = pool == null ? -1 : pool.getMaxTotal();
        this.limit = maxTotal < 0 ? UNBOUNDED_POOL_LIMIT : Math.max(1, maxTotal / 2);
        this.permits = new Semaphore(limit, true);
    }

    /** @return how many attempts may block at once: half the pool's connections */
    int limit() {
        return limit;
    }

    /**
     * Blocks until a lock is pushed on {@code handedKey}, for at most {@code nanos} (rounded up to a millisecond),
     * unless cancelled. An interrupted thread returns at once and keeps its interrupt flag.
     *
     * @return the pushed lock's value; null if the wait ended without it (timed out, cancelled, no connection free)
     * @throws JedisConnectionException if the connection failed while the attempt was not cancelled
     */
    String await(String handedKey, long nanos, HandOff handOff) {
        try {
            if (!permits.tryAcquire(nanos, TimeUnit.NANOSECONDS)) {
                return null;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
        try {
            if (pool == null) {
                double seconds = Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos)) / 1000.0;
                KeyValue<String, String> popped = handOff.cancelled() ? null : client.blpop(seconds, handedKey);
                return popped == null ? null : popped.getValue();
            }
            return awaitOn(pool.getResource(), handedKey, Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos)), handOff);
        } finally {
            permits.release();
        }
    }

    /**
     * The {@code BLPOP} on a pooled connection, whose socket timeout is stretched by the {@code BLPOP}'s own: a server
     * that stops answering fails the wait as it fails any command, instead of hanging it.
     */
    private static String awaitOn(Connection connection, String handedKey, long millis, HandOff handOff) {
        try (connection) {
            if (!handOff.blocksOn(connection)) {
                return null;
            }
            int socketTimeout = connection.getSoTimeout();
            try {
                if (socketTimeout > 0) {
                    connection.setSoTimeout((int) Math.min(Integer.MAX_VALUE, socketTimeout + millis));
                }
                KeyValue<String, String> popped = connection.executeCommand(new CommandObject<>(
                        new CommandArguments(Protocol.Command.BLPOP).key(handedKey).add(millis / 1000.0),
                        BuilderFactory.KEYED_ELEMENT));
                return popped == null ? null : popped.getValue();
            } catch (JedisConnectionException e) {
                connection.setBroken();
                if (handOff.cancelled()) {
                    return null;
                }
                throw e;
            } finally {
                handOff.unblocked();
                if (socketTimeout > 0 && !connection.isBroken()) {
                    try {
                        connection.setSoTimeout(socketTimeout);
                    } catch (RuntimeException cancelledMeanwhile) {
                        // the socket was closed by a cancel: the pool drops the connection
                    }
                }
            }
        }
    }
}
