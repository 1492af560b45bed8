package io.txlock.redis;

import io.txlock.LockBackendException;
import io.txlock.LockException;
import io.txlock.LockInfo;
import io.txlock.LockNotHeldException;
import io.txlock.spi.Attempt;
import io.txlock.spi.Grant;
import io.txlock.spi.LockProvider;
import io.txlock.spi.LockRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.RedisClient;
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
 * the grant that wrote it (its value holds the fencing token and the owner; release and renewal compare it in a
 * Lua script). Fencing tokens come from one counter per prefix, raised in the same script as the grant, and never
 * below the server's clock in microseconds, so they keep growing when a server without persistence restarts.
 * Releases are published on a channel per lock; waiters of one JVM share one subscriber connection per node.
 *
 * <p>With several masters a lock is granted when a majority of them granted it within its lease, minus an
 * allowance for clock drift; the highest of their tokens is written back to that majority before the grant is
 * returned, so that every later majority, which overlaps it, issues a higher one. Quorum mode depends on timing
 * assumptions (bounded clock drift, pauses shorter than the lease, restarted masters that stay away for a lease):
 * use the fencing token wherever the lock protects a write.
 *
 * <p>Needs Redis 6.0 or later (it uses {@code KEEPTTL}); Redis Cluster is not supported (use one master per
 * shard of locks, or a quorum of masters). Thread safe.
 */
public final class RedisLockProvider implements LockProvider {

    private static final Logger log = LoggerFactory.getLogger(RedisLockProvider.class);
    private static final Duration MAX_LEASE = Duration.ofDays(36_500);

    private final List<RedisNode> nodes;
    private final int quorum;
    private final KeySpace keys;
    private final double clockDriftFactor;
    private final ExecutorService fanOutThreads;

    private RedisLockProvider(List<RedisNode> nodes, KeySpace keys, double clockDriftFactor) {
        this.nodes = List.copyOf(nodes);
        this.quorum = nodes.size() / 2 + 1;
        this.keys = keys;
        this.clockDriftFactor = clockDriftFactor;
        AtomicInteger threadNumber = new AtomicInteger();
        this.fanOutThreads = nodes.size() == 1 ? null : Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "txlock-redis-quorum-" + threadNumber.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
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
     * The provider does not close it. It holds one of its connections while local threads wait for locks.
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
        String addresses = nodes.stream().map(RedisNode::address).collect(Collectors.joining(", "));
        return (nodes.size() == 1 ? "redis " + addresses : "redis majority of " + nodes.size() + " masters [" + addresses + "]")
                + ", keys '" + keys.prefix() + "…'";
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        long start = System.nanoTime();
        long lease = leaseMillis(request.lease());
        String key = keys.lockKey(request.name());
        String owner = LockValue.ownerPart(request.owner());
        List<Outcome<RedisNode.Answer>> answers = fanOut(i -> nodes.get(i).acquire(key, keys.fenceKey(), lease, owner));

        String[] provisional = new String[nodes.size()];
        String best = null;
        long token = Long.MIN_VALUE;
        for (int i = 0; i < provisional.length; i++) {
            RedisNode.Answer answer = answers.get(i).value();
            if (answer != null && answer.granted()) {
                provisional[i] = answer.value();
                long proposed = LockValue.parse(answer.value()).token();
                if (proposed > token) {
                    token = proposed;
                    best = answer.value();
                }
            }
        }
        int granted = (int) java.util.Arrays.stream(provisional).filter(v -> v != null).count();
        if (granted >= quorum) {
            RedisGrant grant = adopt(request.name(), key, provisional, best, token);
            if (grant != null && validityMillis(start, lease) > 0) {
                return Attempt.granted(grant);
            }
            releaseQuietly(grant != null ? grant : new RedisGrant(request.name(), key, token, asValues(provisional)));
        } else if (granted > 0) {
            releaseQuietly(new RedisGrant(request.name(), key, token, asValues(provisional)));
        }
        return notGranted(request.name(), answers);
    }

    /**
     * Writes the highest proposed token back to every node that granted, so that any later majority, which
     * shares a node with this one, proposes a higher token. Not needed where that node proposed it (always so
     * with one node).
     *
     * @return the grant if a majority holds its final value, else null
     */
    private RedisGrant adopt(String name, String key, String[] provisional, String finalValue, long token) {
        List<Outcome<Boolean>> adopted = fanOut(i -> provisional[i] != null
                && (provisional[i].equals(finalValue) || nodes.get(i).adopt(key, keys.fenceKey(), provisional[i], finalValue, token)));
        List<List<String>> values = new ArrayList<>();
        int holding = 0;
        for (int i = 0; i < provisional.length; i++) {
            Outcome<Boolean> outcome = adopted.get(i);
            if (!outcome.ok()) {
                values.add(List.of(provisional[i], finalValue));
            } else if (outcome.value()) {
                values.add(List.of(finalValue));
                holding++;
            } else {
                values.add(List.of());
            }
        }
        RedisGrant grant = new RedisGrant(name, key, token, values);
        if (holding >= quorum) {
            return grant;
        }
        releaseQuietly(grant);
        return null;
    }

    private Attempt notGranted(String name, List<Outcome<RedisNode.Answer>> answers) {
        long holderPttl = Long.MAX_VALUE;
        int reachable = 0;
        for (Outcome<RedisNode.Answer> outcome : answers) {
            if (outcome.ok()) {
                reachable++;
                if (!outcome.value().granted() && outcome.value().holderPttl() >= 0) {
                    holderPttl = Math.min(holderPttl, outcome.value().holderPttl());
                }
            }
        }
        if (reachable < quorum) {
            throw unreachable("acquire '" + name + "'", answers);
        }
        return holderPttl == Long.MAX_VALUE ? Attempt.held() : Attempt.heldFor(Duration.ofMillis(holderPttl));
    }

    @Override
    public void renew(Grant grant, Duration lease) {
        RedisGrant g = own(grant);
        long start = System.nanoTime();
        long leaseMillis = leaseMillis(lease);
        List<Outcome<Boolean>> renewed = fanOut(i -> !g.values(i).isEmpty() && nodes.get(i).renew(g.key(), leaseMillis, g.values(i)));
        requireMajority("renew", g, renewed);
        if (validityMillis(start, leaseMillis) <= 0) {
            throw new LockBackendException(describe() + ": renewing " + g + " took longer than its lease of " + lease, null);
        }
    }

    @Override
    public void release(Grant grant) {
        RedisGrant g = own(grant);
        String channel = keys.releaseChannel(g.name());
        requireMajority("release", g, fanOut(i -> !g.values(i).isEmpty() && nodes.get(i).release(g.key(), channel, g.values(i))));
    }

    /** Returns if a majority did it; else the grant is not held, or, if some nodes could not answer, unknown. */
    private void requireMajority(String what, RedisGrant grant, List<Outcome<Boolean>> outcomes) {
        int done = (int) outcomes.stream().filter(o -> o.ok() && o.value()).count();
        int unknown = (int) outcomes.stream().filter(o -> !o.ok()).count();
        if (done >= quorum) {
            return;
        }
        if (done + unknown >= quorum) {
            throw unreachable(what + " " + grant, outcomes);
        }
        throw new LockNotHeldException(describe() + ": cannot " + what + " " + grant + ": "
                + (nodes.size() == 1 ? "its key expired or belongs to another grant"
                        : "only " + done + " of " + nodes.size() + " masters still hold it, " + quorum + " needed"));
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        String key = keys.lockKey(name);
        List<Outcome<Optional<RedisNode.Stored>>> read = fanOut(i -> nodes.get(i).inspect(key));
        if (read.stream().filter(Outcome::ok).count() < quorum) {
            throw unreachable("inspect '" + name + "'", read);
        }
        Map<String, List<RedisNode.Stored>> byValue = new HashMap<>();
        for (Outcome<Optional<RedisNode.Stored>> outcome : read) {
            if (outcome.ok()) {
                outcome.value().ifPresent(s -> byValue.computeIfAbsent(s.value(), v -> new ArrayList<>()).add(s));
            }
        }
        return byValue.entrySet().stream()
                .filter(e -> e.getValue().size() >= quorum)
                .findFirst()
                .map(e -> info(name, e.getKey(), e.getValue()));
    }

    private LockInfo info(String name, String value, List<RedisNode.Stored> copies) {
        LockValue parsed;
        try {
            parsed = LockValue.parse(value);
        } catch (IllegalArgumentException e) {
            throw new LockBackendException(describe() + ": key '" + keys.lockKey(name)
                    + "' holds a value txlock did not write; is another application using prefix '" + keys.prefix() + "'?", e);
        }
        Instant until = copies.stream().filter(s -> s.pttl() >= 0).map(s -> Instant.ofEpochMilli(s.serverMillis() + s.pttl()))
                .min(Instant::compareTo).orElse(null);
        return new LockInfo(name, parsed.host(), parsed.ownerId(), parsed.token(), Instant.ofEpochMilli(parsed.sinceMillis()),
                until, 1);
    }

    /** Subscribes to the lock's release channel on every node, through each node's one shared connection. */
    @Override
    public Optional<AutoCloseable> subscribe(String name, Runnable onRelease) {
        String channel = keys.releaseChannel(name);
        List<AutoCloseable> subscriptions = nodes.stream().map(n -> n.subscribe(channel, onRelease)).toList();
        return Optional.of(subscriptions.size() == 1 ? subscriptions.get(0) : () -> {
            for (AutoCloseable s : subscriptions) {
                s.close();
            }
        });
    }

    @Override
    public void close() {
        for (RedisNode node : nodes) {
            try {
                node.close();
            } catch (RuntimeException e) {
                log.warn("closing redis {} failed: {}", node, e.toString());
            }
        }
        if (fanOutThreads != null) {
            fanOutThreads.shutdown();
        }
    }

    @Override
    public String toString() {
        return describe();
    }

    // ---- plumbing

    /** How much of a lease is left after {@code start}, minus the clock drift allowance. */
    private double validityMillis(long start, long leaseMillis) {
        double elapsed = (System.nanoTime() - start) / 1e6;
        return leaseMillis - elapsed - leaseMillis * clockDriftFactor;
    }

    private static long leaseMillis(Duration lease) {
        return lease.compareTo(MAX_LEASE) > 0 ? MAX_LEASE.toMillis() : Math.max(1, lease.toMillis());
    }

    private static List<List<String>> asValues(String[] perNode) {
        return java.util.Arrays.stream(perNode).map(v -> v == null ? List.<String>of() : List.of(v)).toList();
    }

    private RedisGrant own(Grant grant) {
        if (grant instanceof RedisGrant g) {
            return g;
        }
        throw new IllegalArgumentException("not a grant of " + describe() + ": " + grant);
    }

    private void releaseQuietly(RedisGrant grant) {
        String channel = keys.releaseChannel(grant.name());
        for (Outcome<Boolean> o : fanOut(i -> !grant.values(i).isEmpty() && nodes.get(i).release(grant.key(), channel, grant.values(i)))) {
            if (!o.ok()) {
                log.debug("could not undo a partial grant of {}; it expires with its lease: {}", grant, o.error().getMessage());
            }
        }
    }

    private LockBackendException unreachable(String what, List<? extends Outcome<?>> outcomes) {
        List<LockBackendException> errors = outcomes.stream().filter(o -> !o.ok()).map(Outcome::error).toList();
        String reasons = errors.stream().map(Throwable::getMessage).collect(Collectors.joining("; "));
        LockBackendException e = new LockBackendException(describe() + ": could not " + what + ": "
                + (nodes.size() == 1 ? reasons : errors.size() + " of " + nodes.size() + " masters failed: " + reasons),
                errors.isEmpty() ? null : errors.get(0).getCause());
        errors.stream().skip(1).forEach(e::addSuppressed);
        return e;
    }

    /** Runs {@code call(i)} for every node, in parallel when there are several, and collects each result or failure. */
    private <T> List<Outcome<T>> fanOut(IntFunction<T> call) {
        if (nodes.size() == 1) {
            return List.of(Outcome.of(() -> call.apply(0)));
        }
        List<CompletableFuture<Outcome<T>>> others = new ArrayList<>();
        for (int i = 1; i < nodes.size(); i++) {
            int node = i;
            others.add(CompletableFuture.supplyAsync(() -> Outcome.of(() -> call.apply(node)), fanOutThreads));
        }
        List<Outcome<T>> all = new ArrayList<>(nodes.size());
        all.add(Outcome.of(() -> call.apply(0)));
        for (CompletableFuture<Outcome<T>> other : others) {
            try {
                all.add(other.join());
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : e;
            }
        }
        return all;
    }

    /** What one node answered, or why it could not. */
    private record Outcome<T>(T value, LockBackendException error) {
        static <T> Outcome<T> of(Supplier<T> call) {
            try {
                return new Outcome<>(call.get(), null);
            } catch (LockBackendException e) {
                return new Outcome<>(null, e);
            }
        }

        boolean ok() {
            return error == null;
        }
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
        return new NodeSpec(master.toString(),
                () -> RedisClient.builder().hostAndPort(master).clientConfig(config).build(), true);
    }

    private static NodeSpec nodeOf(UnifiedJedis client, int number) {
        if (client == null) {
            throw new IllegalArgumentException("client must not be null");
        }
        if (client instanceof JedisCluster) {
            throw new IllegalArgumentException("Redis Cluster is not supported: a lock's scripts use keys of several slots."
                    + " Pass a client of a standalone master, or use quorum(…) over independent masters");
        }
        return new NodeSpec("client " + number, () -> client, false);
    }

    private record NodeSpec(String address, Supplier<UnifiedJedis> client, boolean owned) {
    }

    /** Configures a {@link RedisLockProvider}. */
    public static final class Builder {
        private final List<NodeSpec> nodes;
        private String keyPrefix = "txlock:";
        private double clockDriftFactor = 0.01;

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
         * Builds the provider. It connects lazily: a server that is down now makes lock calls fail with
         * {@link LockBackendException} until it is back, and does not fail the build.
         *
         * @return the provider; its {@code LockManager} closes it
         */
        public RedisLockProvider build() {
            KeySpace keys = new KeySpace(keyPrefix);
            List<RedisNode> built = new ArrayList<>();
            try {
                for (NodeSpec spec : nodes) {
                    built.add(new RedisNode(spec.address(), spec.client().get(), spec.owned(), keys));
                }
            } catch (RuntimeException e) {
                built.forEach(RedisNode::close);
                throw e instanceof LockException ? e : new LockBackendException("could not create a Redis client: " + e, e);
            }
            return new RedisLockProvider(built, keys, clockDriftFactor);
        }
    }
}
