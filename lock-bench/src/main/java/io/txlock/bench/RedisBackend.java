package io.txlock.bench;

import io.txlock.jdbc.JdbcDialect;
import io.txlock.redis.RedisLockProvider;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * One Redis master through Jedis and {@code txlock-lock-redis}, by default the local server at 127.0.0.1:6379.
 * Every node of a site has its own provider (its own connections and pub/sub subscriber). The bench's keys
 * live under a fresh prefix, deleted when the backend closes; orders go to an embedded H2 database.
 */
final class RedisBackend implements Backend {

    static final String STRATEGY = "SET_NX_PX";
    static final String DEFAULT_ADDRESS = "127.0.0.1:6379";

    private final BackendSpec spec;
    private final HostAndPort address;
    private final String prefix;
    private final EmbeddedOrders orders;
    private final String describe;
    private final List<Peer> peers;

    private RedisBackend(BackendSpec spec, int connections) {
        this.spec = spec;
        this.address = HostAndPort.from(spec.url() != null ? spec.url() : DEFAULT_ADDRESS);
        this.prefix = spec.prepared() ? spec.namespace() : "txlock-bench:" + UUID.randomUUID().toString().substring(0, 12) + ":";
        this.orders = new EmbeddedOrders(connections);
        try (Jedis jedis = connect()) {
            String info = jedis.info("server");
            String version = info.lines().filter(l -> l.startsWith("redis_version:")).map(l -> l.substring(14).trim()).findFirst()
                    .orElse("?");
            this.describe = "Redis " + version + " at " + address + ", one master, Jedis client; orders in embedded H2";
        } catch (RuntimeException e) {
            throw new IllegalStateException("no Redis at " + address + " (start it, or point --redis at one): " + e.getMessage(), e);
        }
        this.peers = List.of(new RedissonPeer(address.toString(), prefix));
    }

    /**
     * @param spec the address (or none, for 127.0.0.1:6379)
     * @param connections connections of the embedded orders database
     * @return the backend
     */
    static RedisBackend open(BackendSpec spec, int connections) {
        return new RedisBackend(spec, connections);
    }

    /**
     * Redis counts the commands it runs ({@code total_commands_processed} of {@code INFO stats}): those of its
     * clients, and those a Lua script calls; an INFO counts once it has answered.
     */
    @Override
    public ServerUsage openServerUsage() {
        Jedis counting = connect();
        ServerUsage.Counter counter = new ServerUsage.Counter() {
            @Override
            public long read() {
                return counting.info("stats").lines().filter(l -> l.startsWith("total_commands_processed:"))
                        .mapToLong(l -> Long.parseLong(l.substring(l.indexOf(':') + 1).trim())).findFirst().orElseThrow();
            }

            @Override
            public long ownRequests() {
                return 1;
            }

            @Override
            public String note() {
                return "Redis counts each command it runs: a script's EVALSHA and each command the script calls";
            }

            @Override
            public void close() {
                counting.close();
            }
        };
        return ServerUsage.ofServer("Redis", address.getHost(), address.getPort(), "commands", counter, null);
    }

    static JedisClientConfig config() {
        return DefaultJedisClientConfig.builder().connectionTimeoutMillis(2_000).socketTimeoutMillis(5_000).build();
    }

    /** @return a plain connection of its own */
    Jedis connect() {
        return new Jedis(address, config());
    }

    String prefix() {
        return prefix;
    }

    @Override
    public BackendKind kind() {
        return BackendKind.REDIS;
    }

    @Override
    public String describe() {
        return describe;
    }

    @Override
    public List<String> strategies() {
        return List.of(STRATEGY);
    }

    @Override
    public Site openSite(String strategy, int nodes) {
        return Site.of(nodes, i -> RedisLockProvider.builder(address, config()).keyPrefix(prefix + "locks:").build(),
                orders.transactions(), JdbcDialect.H2, List.of());
    }

    @Override
    public Optional<RawLocks> openRaw(String strategy) {
        return Optional.of(new RedisRawLocks(this));
    }

    /** Redisson's RLock, under the backend's key prefix. */
    @Override
    public List<Peer> peers() {
        return peers;
    }

    @Override
    public BackendSpec childSpec() {
        return new BackendSpec(BackendKind.REDIS, address.toString(), null, "", prefix, true);
    }

    @Override
    public void close() {
        try {
            if (!spec.prepared()) {
                try (Jedis jedis = connect()) {
                    String cursor = ScanParams.SCAN_POINTER_START;
                    ScanParams match = new ScanParams().match(prefix + "*").count(1000);
                    do {
                        ScanResult<String> page = jedis.scan(cursor, match);
                        if (!page.getResult().isEmpty()) {
                            jedis.del(page.getResult().toArray(String[]::new));
                        }
                        cursor = page.getCursor();
                    } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
                }
            }
        } catch (RuntimeException e) {
            System.err.println("could not delete the bench's Redis keys under " + prefix + ": " + e);
        } finally {
            orders.close();
        }
    }
}
