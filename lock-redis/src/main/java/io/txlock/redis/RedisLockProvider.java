package io.txlock.redis;

import io.txlock.LockBackendException;
import io.txlock.LockException;
import io.txlock.LockInfo;
import io.txlock.spi.Attempt;
import io.txlock.spi.Grant;
import io.txlock.spi.LockProvider;
import io.txlock.spi.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Locks in Redis, on one master or on a quorum of independent masters (Redlock).
 *
 * <pre>{@code
 * LockProvider redis = RedisLockProvider.builder(new HostAndPort("redis", 6379),
 *         DefaultJedisClientConfig.builder().password(secret).ssl(true).build())
 *     .keyPrefix("orders:")
 *     .build();
 * LockManager locks = LockManager.builder(redis).build();
 * }</pre>
 *
 * <p>A lock is the key {@code <prefix>lock:<name>}, taken with {@code SET NX PX} and freed or extended only by
 * the grant that wrote it (its value holds the fencing token, a grant id chosen by the client and the owner;
 * release and renewal compare grant id and owner in a Lua script, also on a master whose answer was lost). Fencing tokens come from one counter per prefix, raised in the same script as the grant, and never
 * below the server's clock in microseconds, so they keep growing when a server without persistence restarts.
 *
 * <p>On one master, waiting is fair and does not poll: a waiting attempt queues in Redis and blocks in a
 * {@code BLPOP} on a list of its own until the release before it hands it the lock (a new token, its own lease) and
 * pushes it there, which wakes that attempt alone; a waiter that gives up leaves the queue at once, and a dead
 * waiter's place expires after 2 s. Each blocked attempt holds one connection of the client's pool while it blocks
 * (one per lock name that local threads wait for: the core lets one thread per name wait in Redis); at most half the
 * pool's connections block at once, and a waiter beyond that looks in Redis every 500 ms whether the lock was handed
 * to it until a connection is free. A provider built from a {@link HostAndPort} has a pool of
 * {@value #OWN_POOL_SIZE} connections, so {@value #OWN_POOL_BLOCKED} attempts may block at once.
 *
 * <p>With several masters a lock is granted when a majority of them granted it within its lease, minus an
 * allowance for clock drift; the highest of their tokens is written back to that majority before the grant is
 * returned, so that every later majority, which overlaps it, issues a higher one. Quorum mode is not queued: its
 * waiters are woken by a release published on a channel per lock, and race for it. Quorum mode depends on timing
 * assumptions (bounded clock drift, pauses shorter than the lease, restarted masters that stay away for a lease):
 * use the fencing token wherever the lock protects a write.
 *
 * <p>Needs Redis 6.2 or later (it uses {@code KEEPTTL} and {@code SET … GET}); Redis Cluster is not supported (use one master per
 * shard of locks, or a quorum of masters). Thread safe.
 */
public final class RedisLockProvider implements LockProvider {

    /**
     * The shortest lease a Redis lock takes: 100 ms. A shorter one can run out before Redis's answer arrives under
     * ordinary load, and the core renews a lease every third of it. Shorter leases are refused with
     * {@link IllegalArgumentException} when a lock is taken; {@code extend} to a shorter lease is allowed, and lets
     * the lock go when it runs out.
     */
    public static final Duration MIN_LEASE = Duration.ofMillis(100);

    private static final Logger log = LoggerFactory.getLogger(RedisLockProvider.class);
    /** How long close() lets waiting attempts leave their queues before it closes the clients. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(2);
    /** The connections of the pool of a provider built from an address: half of them for blocked waiters. */
    static final int OWN_POOL_SIZE = 32;
    /** How many attempts of a provider built from an address may block at once. */
    static final int OWN_POOL_BLOCKED = OWN_POOL_SIZE / 2;

    private final List<RedisNode> nodes;
    private final KeySpace keys;
    private final String description;
    private final Redlock redlock;
    /** A single master's fair queue; null in quorum mode. */
    private final FairWait fairWait;

    private RedisLockProvider(List<RedisNode> nodes, KeySpace keys, double clockDriftFactor, Duration recheck) {
        this.nodes = List.copyOf(nodes);
        this.keys = keys;
        String addresses = nodes.stream().map(RedisNode::address).collect(Collectors.joining(", "));
        this.description = (nodes.size() == 1 ? "redis " + addresses
                : "redis majority of " + nodes.size() + " masters [" + addresses + "]") + ", keys '" + keys.prefix() + "…'";
        this.redlock = new Redlock(nodes, keys, clockDriftFactor, description);
        this.fairWait = nodes.size() == 1 ? new FairWait(redlock, nodes.get(0), keys, recheck) : null;
    }

    /**
     * A provider on one Redis master. AUTH (user, password), TLS, timeouts and the client name are Jedis' own
     * settings in {@code config}; short connect and socket timeouts make an unreachable server fail fast.
     *
     * @param master the server
     * @param config how to connect, e.g. {@code DefaultJedisClientConfig.builder().password(p).ssl(true).build()}
     * @return a builder
     */
    public static Builder builder(HostAndPort master, JedisClientConfig config) {
        return new Builder(List.of(nodeOn(master, config)));
    }

    /**
     * A provider over a client the caller already has (a {@link RedisClient}, say, with its own pool settings).
     * The provider does not close it. A local thread that waits for a lock blocks on one of the client's pooled
     * connections, taken from a {@link RedisClient}'s pool (at most half of the pool's connections at once), so that
     * a cancel can close it; with another kind of client it blocks through the client, and a cancel takes effect
     * within 500 ms.
     *
     * @param client a client of one standalone master
     * @return a builder
     */
    public static Builder builder(UnifiedJedis client) {
        return new Builder(List.of(nodeOf(client, 1)));
    }

    /**
     * A quorum provider (Redlock) over independent masters (not replicas of each other): at least 3, an odd
     * number preferably; a lock needs a majority of them.
     *
     * @param masters the servers
     * @param config how to connect to each of them
     * @return a builder
     */
    public static Builder quorum(List<HostAndPort> masters, JedisClientConfig config) {
        if (masters == null) {
            throw new IllegalArgumentException("masters must not be null: pass at least 3 independent Redis masters");
        }
        Set<HostAndPort> distinct = new HashSet<>();
        for (HostAndPort master : masters) {
            if (master != null && !distinct.add(master)) {
                throw new IllegalArgumentException("master " + master + " is listed twice: a quorum needs distinct servers");
            }
        }
        requireQuorumSize(masters.size());
        return new Builder(masters.stream().map(m -> nodeOn(m, config)).toList());
    }

    /**
     * A quorum provider over clients the caller already has, one per independent master. The provider does not
     * close them.
     *
     * @param clients one client per master
     * @return a builder
     */
    public static Builder quorumOf(List<? extends UnifiedJedis> clients) {
        if (clients == null) {
            throw new IllegalArgumentException("clients must not be null: pass one client per independent Redis master");
        }
        requireQuorumSize(clients.size());
        List<NodeSpec> specs = new ArrayList<>();
        for (int i = 0; i < clients.size(); i++) {
            specs.add(nodeOf(clients.get(i), i + 1));
        }
        return new Builder(specs);
    }

    @Override
    public String describe() {
        return description;
    }

    /**
     * On a single master, yes: a waiting attempt queues in Redis and blocks until the lock is handed to it (see
     * the class comment). In quorum mode no: an attempt answers at once and the core waits for release hints.
     */
    @Override
    public boolean blocksWhileWaiting() {
        return fairWait != null;
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        return fairWait != null ? fairWait.tryAcquire(request) : redlock.tryAcquire(request);
    }

    @Override
    public void renew(Grant grant, Duration lease) {
        redlock.renew(own(grant), lease);
    }

    @Override
    public void release(Grant grant) {
        redlock.release(own(grant));
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return redlock.inspect(name);
    }

    /**
     * @return listing by {@code SCAN} of the lock keys (on every master, each name then read as {@link #inspect} reads
     *     it), and forced release by a script that frees a lock only while it holds the given token and hands it to
     *     the first live waiter of its queue, as a release does
     */
    @Override
    public Optional<io.txlock.spi.LockAdministration> administration() {
        return Optional.of(new io.txlock.spi.LockAdministration() {
            @Override
            public List<LockInfo> list(String prefix, int limit) {
                java.util.TreeSet<String> names = new java.util.TreeSet<>();
                for (RedisNode node : nodes) {
                    node.scan(keys.lockKeyPattern(prefix)).forEach(key -> names.add(keys.nameOf(key)));
                }
                return io.txlock.spi.LockAdministration.held(names, limit, redlock::inspect);
            }

            @Override
            public boolean forceRelease(String name, long fencingToken) {
                boolean freed = false;
                for (RedisNode node : nodes) {
                    freed |= node.forceRelease(keys.scriptKeys(name), keys.releaseChannel(name), fencingToken);
                }
                return freed;
            }
        });
    }

    /**
     * Quorum mode: subscribes to the lock's release channel on every node, through each node's one shared
     * connection. A single master has no hints: its waiters are queued and handed the lock.
     */
    @Override
    public Optional<AutoCloseable> subscribe(String name, Runnable onRelease) {
        if (fairWait != null) {
            return Optional.empty();
        }
        String channel = keys.releaseChannel(name);
        List<AutoCloseable> subscriptions = nodes.stream().map(n -> n.subscribe(channel, onRelease)).toList();
        return Optional.of(subscriptions.size() == 1 ? subscriptions.get(0) : () -> {
            for (AutoCloseable s : subscriptions) {
                s.close();
            }
        });
    }

    /** @return how many grants this provider's waiters took from their own lists, woken by the release: for tests */
    long handOffsTaken() {
        return fairWait == null ? 0 : fairWait.handedByList();
    }

    /** @return how many times this provider's waiters ran the acquire script, to queue or to look again: for tests */
    long queuedLooks() {
        return fairWait == null ? 0 : fairWait.queuedLooks();
    }

    /** @return how many of this provider's waiting attempts may block on the master at once: for tests */
    int blockedWaitersLimit() {
        return nodes.get(0).blockedWaitersLimit();
    }

    @Override
    public void close() {
        if (fairWait != null) {
            fairWait.close(CLOSE_WAIT);
        }
        for (RedisNode node : nodes) {
            try {
                node.close();
            } catch (RuntimeException e) {
                log.warn("closing redis {} failed: {}", node, e.toString());
            }
        }
        redlock.close();
    }

    @Override
    public String toString() {
        return describe();
    }

    // ---- plumbing

    private RedisGrant own(Grant grant) {
        if (grant instanceof RedisGrant g) {
            return g;
        }
        throw new IllegalArgumentException("not a grant of " + describe() + ": " + grant);
    }

    // ---- building

    private static void requireQuorumSize(int size) {
        if (size < 3) {
            throw new IllegalArgumentException("a quorum needs at least 3 independent masters, got " + size
                    + ": use builder(…) for a single master");
        }
    }

    private static NodeSpec nodeOn(HostAndPort master, JedisClientConfig config) {
        if (master == null) {
            throw new IllegalArgumentException("master must not be null: pass new HostAndPort(host, port)");
        }
        if (config == null) {
            throw new IllegalArgumentException("config must not be null: pass DefaultJedisClientConfig.builder().build()"
                    + " or one with your password, TLS and timeouts");
        }
        return new NodeSpec(master.toString(), () -> RedisClient.builder().hostAndPort(master).clientConfig(config)
                .poolConfig(ownPool()).build(), true);
    }

    @SuppressWarnings("deprecation") // JedisCluster is named only to refuse it, as RedisClusterClient that replaces it
    private static NodeSpec nodeOf(UnifiedJedis client, int number) {
        if (client == null) {
            throw new IllegalArgumentException("client must not be null");
        }
        if (client instanceof JedisCluster || client instanceof RedisClusterClient) {
            throw new IllegalArgumentException("Redis Cluster is not supported: a lock's scripts use keys of several slots."
                    + " Pass a client of a standalone master, or use quorum(…) over independent masters");
        }
        return new NodeSpec("client " + number, () -> client, false);
    }

    private static ConnectionPoolConfig ownPool() {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(OWN_POOL_SIZE);
        pool.setMaxIdle(OWN_POOL_SIZE);
        return pool;
    }

    private record NodeSpec(String address, Supplier<UnifiedJedis> client, boolean owned) {
    }

    /** Configures a {@link RedisLockProvider}. */
    public static final class Builder {
        private final List<NodeSpec> nodes;
        private String keyPrefix = "txlock:";
        private double clockDriftFactor = 0.01;
        private Duration recheck = FairWait.RECHECK;

        private Builder(List<NodeSpec> nodes) {
            this.nodes = nodes;
        }

        /**
         * @param keyPrefix the start of every key and channel this provider uses, e.g. {@code "txlock:"} (the
         *     default); 1 to 200 characters without whitespace. Providers with different prefixes never see each
         *     other's locks, and tokens increase per prefix.
         * @return this builder
         * @throws IllegalArgumentException if the prefix is empty, too long or has whitespace
         */
        public Builder keyPrefix(String keyPrefix) {
            KeySpace.validate(keyPrefix);
            this.keyPrefix = keyPrefix;
            return this;
        }

        /**
         * @param clockDriftFactor the part of a lease by which the clocks of this JVM and the servers may
         *     disagree (0.01, Redlock's figure, by default): a grant or renewal that took longer than the lease
         *     minus this allowance is not trusted
         * @return this builder
         * @throws IllegalArgumentException unless {@code 0 <= clockDriftFactor < 0.5}
         */
        public Builder clockDriftFactor(double clockDriftFactor) {
            if (!(clockDriftFactor >= 0 && clockDriftFactor < 0.5)) {
                throw new IllegalArgumentException("clockDriftFactor must be at least 0 and below 0.5, was " + clockDriftFactor);
            }
            this.clockDriftFactor = clockDriftFactor;
            return this;
        }

        /**
         * For tests: how long a waiter blocks before it refreshes its place and looks whether the lock is its (a
         * place lasts four of these).
         */
        Builder recheck(Duration recheck) {
            this.recheck = recheck;
            return this;
        }

        /**
         * Builds the provider. It connects lazily: a server that is down now makes lock calls fail with
         * {@link LockBackendException} until it is back, and does not fail the build.
         *
         * @return the provider; its {@code LockManager} closes it
         */
        public RedisLockProvider build() {
            KeySpace keys = new KeySpace(keyPrefix);
            String providerChannel = keys.providerChannel(UUID.randomUUID().toString());
            List<RedisNode> built = new ArrayList<>();
            try {
                for (NodeSpec spec : nodes) {
                    built.add(new RedisNode(spec.address(), spec.client().get(), spec.owned(), providerChannel));
                }
            } catch (RuntimeException e) {
                built.forEach(RedisNode::close);
                throw e instanceof LockException ? e : new LockBackendException("could not create a Redis client: " + e, e);
            }
            return new RedisLockProvider(built, keys, clockDriftFactor, recheck);
        }
    }
}
