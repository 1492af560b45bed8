package io.txlock.redis;

import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;
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
 * in Redis between those waits whether the lock was handed to it (see {@link FairWait}). A connection a wait ended on
 * well is kept for the next wait, its socket timeout already stretched, instead of going back to the pool: at most
 * {@link #limit()} of them, the most that block at once (none with a pool of one connection).
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
    /** Whether ended waits keep their connections: not if that could leave the pool none for other commands. */
    private final boolean keeps;
    /** Connections of ended waits, taken from the pool and kept for the next (their socket timeout stretched). */
    private final Deque<Kept> kept = new ConcurrentLinkedDeque<>();

    /** A pooled connection kept between waits: its own socket timeout, and the one it has now (0: not stretched). */
    private record Kept(Connection connection, int socketTimeout, int stretched) {
    }

    BlockedWaiters(UnifiedJedis client) {
        this.client = client;
        this.pool = client instanceof RedisClient pooled ? pooled.getPool() : null;
        int maxTotal = pool == null ? -1 : pool.getMaxTotal();
        this.limit = maxTotal < 0 ? UNBOUNDED_POOL_LIMIT : Math.max(1, maxTotal / 2);
        this.permits = new Semaphore(limit, true);
        this.keeps = maxTotal < 0 || maxTotal > limit;
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
            Kept connection = kept.pollFirst();
            if (connection == null) {
                Connection fresh = pool.getResource();
                connection = new Kept(fresh, fresh.getSoTimeout(), fresh.getSoTimeout());
            }
            return awaitOn(connection, handedKey, Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos)), handOff);
        } finally {
            permits.release();
        }
    }

    /** Gives the kept connections back to the pool: before it drops its idle ones, or closes. */
    void release() {
        for (Kept k = kept.pollFirst(); k != null; k = kept.pollFirst()) {
            try {
                if (k.stretched() != k.socketTimeout()) {
                    k.connection().setSoTimeout(k.socketTimeout());
                }
            } catch (RuntimeException e) {
                k.connection().setBroken();
            }
            try {
                k.connection().close();
            } catch (RuntimeException e) {
                // the pool drops it
            }
        }
    }

    /**
     * The {@code BLPOP} on a pooled connection, whose socket timeout is stretched by the {@code BLPOP}'s own (at least by
     * {@link FairWait#RECHECK}, once for the waits to come): a server that stops answering fails the wait as it fails
     * any command, instead of hanging it. The connection is kept for the next wait if the wait ended well, else
     * closed (a broken one, a cancelled one, is dropped by the pool).
     */
    private String awaitOn(Kept held, String handedKey, long millis, HandOff handOff) {
        Connection connection = held.connection();
        boolean keep = false;
        try {
            if (!handOff.blocksOn(connection)) {
                keep = true;
                return null;
            }
            try {
                int socketTimeout = held.socketTimeout();
                if (socketTimeout > 0 && held.stretched() < socketTimeout + millis) {
                    int stretched = (int) Math.min(Integer.MAX_VALUE, socketTimeout + Math.max(millis, FairWait.RECHECK.toMillis()));
                    connection.setSoTimeout(stretched);
                    held = new Kept(connection, socketTimeout, stretched);
                }
                KeyValue<String, String> popped = connection.executeCommand(new CommandObject<>(
                        new CommandArguments(Protocol.Command.BLPOP).key(handedKey).add(millis / 1000.0),
                        BuilderFactory.KEYED_ELEMENT));
                keep = true;
                return popped == null ? null : popped.getValue();
            } catch (JedisConnectionException e) {
                connection.setBroken();
                if (handOff.cancelled()) {
                    return null;
                }
                throw e;
            } finally {
                handOff.unblocked();
            }
        } finally {
            if (keep && keeps && !connection.isBroken() && !handOff.cancelled()) {
                kept.offerFirst(held);
            } else {
                connection.close();
            }
        }
    }
}
