package io.txlock.adapter;

import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.Strategy;
import io.txlock.jdbc.JdbcLockProvider;
import io.txlock.redis.RedisLockProvider;
import io.txlock.spi.LockProvider;
import io.txlock.zookeeper.ZooKeeperLockProvider;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.ConfigProperty;
import jakarta.resource.spi.ConnectionDefinition;
import jakarta.resource.spi.ConnectionManager;
import jakarta.resource.spi.ConnectionRequestInfo;
import jakarta.resource.spi.ManagedConnection;
import jakarta.resource.spi.ManagedConnectionFactory;
import jakarta.resource.NotSupportedException;
import jakarta.resource.spi.ResourceAdapter;
import jakarta.resource.spi.ResourceAdapterAssociation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.security.auth.Subject;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;

/**
 * One connection factory of the adapter, and the lock manager behind it, configured by these config properties
 * (defaults in parentheses; override them in {@code META-INF/ironjacamar.xml} or the server's resource-adapter
 * configuration):
 * <ul>
 * <li>{@code backend} ({@code jdbc}): {@code jdbc}, {@code redis} or {@code zookeeper}</li>
 * <li>{@code dataSourceJndiName} ({@code java:comp/DefaultDataSource}): JDBC, the application's JTA datasource, whose
 *     database has the lock table; a {@code java:app/...} name resolves in the application that first asks for a
 *     connection</li>
 * <li>{@code leaseDataSourceJndiName} (none): JDBC, a non-JTA datasource on the same database, for LEASE locks taken
 *     inside transactions (and, on MySQL/MariaDB, for creating lock rows outside them)</li>
 * <li>{@code strategy} ({@code SELECT_FOR_UPDATE}): JDBC, a {@link Strategy}</li>
 * <li>{@code table} ({@code method_lock}): JDBC, the lock table</li>
 * <li>{@code redisEndpoints} ({@code 127.0.0.1:6379}): Redis, {@code host:port}, or three or more separated by commas
 *     for a quorum of independent masters</li>
 * <li>{@code redisKeyPrefix} (the provider's default): Redis, the prefix of every key</li>
 * <li>{@code zookeeperConnectString} ({@code 127.0.0.1:2181}): ZooKeeper, the ensemble</li>
 * <li>{@code zookeeperBasePath} ({@code /txlock}): ZooKeeper, the parent of the lock nodes</li>
 * <li>{@code defaultWait} ({@code 30s}) and {@code defaultLease} ({@code 30s}): the options of calls that give none;
 *     {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}, ISO-8601 ({@code PT5S}) or {@code forever} (wait only)</li>
 * </ul>
 * The lock manager is built when the first connection is asked for, on the caller's thread (where the application's
 * JNDI names resolve), and closed when the adapter stops. The JDBC provider's reaper of expired lease rows is off:
 * every thread of the manager comes from the container, and an expired row is taken over by its next acquirer anyway.
 */
@ConnectionDefinition(connectionFactory = LockConnectionFactory.class, connectionFactoryImpl = LockConnectionFactoryImpl.class,
        connection = LockConnection.class, connectionImpl = LockConnectionImpl.class)
public class TxlockManagedConnectionFactory extends WithLogWriter
        implements ManagedConnectionFactory, ResourceAdapterAssociation {

    private static final long serialVersionUID = 1L;

    @ConfigProperty(defaultValue = "jdbc", description = "jdbc, redis or zookeeper")
    private String backend = "jdbc";

    @ConfigProperty(defaultValue = "java:comp/DefaultDataSource", description = "JDBC: the JNDI name of the JTA datasource")
    private String dataSourceJndiName = "java:comp/DefaultDataSource";

    @ConfigProperty(defaultValue = "", description = "JDBC: the JNDI name of a non-JTA datasource on the same database (optional)")
    private String leaseDataSourceJndiName = "";

    @ConfigProperty(defaultValue = "SELECT_FOR_UPDATE", description = "JDBC: SELECT_FOR_UPDATE, OPTIMISTIC_VERSION or UNIQUE_INSERT")
    private String strategy = "SELECT_FOR_UPDATE";

    @ConfigProperty(defaultValue = "method_lock", description = "JDBC: the lock table")
    private String table = "method_lock";

    @ConfigProperty(defaultValue = "127.0.0.1:6379", description = "Redis: host:port, or 3 or more for a quorum")
    private String redisEndpoints = "127.0.0.1:6379";

    @ConfigProperty(defaultValue = "", description = "Redis: the key prefix (optional)")
    private String redisKeyPrefix = "";

    @ConfigProperty(defaultValue = "127.0.0.1:2181", description = "ZooKeeper: the connect string")
    private String zookeeperConnectString = "127.0.0.1:2181";

    @ConfigProperty(defaultValue = "/txlock", description = "ZooKeeper: the parent node of the locks")
    private String zookeeperBasePath = "/txlock";

    @ConfigProperty(defaultValue = "30s", description = "the wait of calls that give none")
    private String defaultWait = "30s";

    @ConfigProperty(defaultValue = "30s", description = "the lease of calls that give none")
    private String defaultLease = "30s";

    private transient TxlockResourceAdapter resourceAdapter;
    private transient LockManager manager;
    private transient boolean closed;

    /** For the container. */
    public TxlockManagedConnectionFactory() {
    }

    @Override
    public Object createConnectionFactory(ConnectionManager connectionManager) {
        return new LockConnectionFactoryImpl(this, connectionManager);
    }

    /** Not supported: the adapter runs in a container, whose connection manager pools the connections. */
    @Override
    public Object createConnectionFactory() throws ResourceException {
        throw new NotSupportedException("txlock's adapter needs the container's connection manager: look the connection"
                + " factory up in JNDI; outside a container use LockManager.builder(...) directly");
    }

    @Override
    public ManagedConnection createManagedConnection(Subject subject, ConnectionRequestInfo info) throws ResourceException {
        return new TxlockManagedConnection(this, manager());
    }

    @Override
    @SuppressWarnings("rawtypes")
    public ManagedConnection matchManagedConnections(Set connections, Subject subject, ConnectionRequestInfo info) {
        for (Object connection : connections) {
            if (connection instanceof TxlockManagedConnection managed && managed.factory() == this) {
                return managed;
            }
        }
        return null;
    }

    /**
     * @return the lock manager of this factory, built on first use
     * @throws ResourceException if the configuration is wrong (the message names the property to fix), the backend's
     *     settings do not work, or the adapter is stopped
     */
    synchronized LockManager manager() throws ResourceException {
        if (closed) {
            throw new ResourceException("the txlock resource adapter is stopped");
        }
        if (manager != null) {
            return manager;
        }
        TxlockResourceAdapter adapter = resourceAdapter;
        if (adapter == null || adapter.executor() == null) {
            throw new ResourceException("the txlock connection factory is not associated with a started resource adapter");
        }
        LockProvider provider;
        LockOptions defaults;
        try {
            defaults = LockOptions.defaults().withWait(duration("defaultWait", defaultWait, true))
                    .withLease(duration("defaultLease", defaultLease, false));
            provider = provider();
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new ResourceException("txlock resource adapter: " + e.getMessage(), e);
        }
        manager = LockManager.builder(provider).defaults(defaults).transactions(adapter.transactions())
                .scheduler(adapter.executor()).build();
        adapter.register(this);
        return manager;
    }

    /** @return the adapter's JTA support */
    TransactionGuard transactions() {
        return resourceAdapter.transactions();
    }

    /** Closes the lock manager (releasing the locks it holds); the factory gives no connection any more. */
    synchronized void closeManager() {
        closed = true;
        if (manager != null) {
            try {
                manager.close();
            } finally {
                manager = null;
            }
        }
    }

    private LockProvider provider() throws ResourceException {
        switch (backend.strip().toLowerCase(Locale.ROOT)) {
            case "jdbc" -> {
                JdbcLockProvider.Builder jdbc = JdbcLockProvider.builder(lookUp("dataSourceJndiName", dataSourceJndiName))
                        .strategy(strategy()).table(table.strip()).reaperPeriod(Duration.ZERO);
                if (!leaseDataSourceJndiName.isBlank()) {
                    jdbc.leaseDataSource(lookUp("leaseDataSourceJndiName", leaseDataSourceJndiName));
                }
                return jdbc.build();
            }
            case "redis" -> {
                List<HostAndPort> endpoints = new ArrayList<>();
                for (String endpoint : redisEndpoints.split(",")) {
                    endpoints.add(hostAndPort(endpoint.strip()));
                }
                DefaultJedisClientConfig config = DefaultJedisClientConfig.builder().build();
                RedisLockProvider.Builder redis = endpoints.size() == 1 ? RedisLockProvider.builder(endpoints.get(0), config)
                        : RedisLockProvider.quorum(endpoints, config);
                if (!redisKeyPrefix.isBlank()) {
                    redis.keyPrefix(redisKeyPrefix.strip());
                }
                return redis.build();
            }
            case "zookeeper" -> {
                CuratorFramework client = CuratorFrameworkFactory.builder().connectString(zookeeperConnectString.strip())
                        .retryPolicy(new ExponentialBackoffRetry(200, 5)).build();
                client.start();
                try {
                    if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
                        client.close();
                        throw new ResourceException("ZooKeeper at zookeeperConnectString '" + zookeeperConnectString
                                + "' was not reached within 30 s");
                    }
                } catch (InterruptedException e) {
                    client.close();
                    Thread.currentThread().interrupt();
                    throw new ResourceException("interrupted while connecting to ZooKeeper", e);
                }
                return ZooKeeperLockProvider.builder(client).basePath(zookeeperBasePath.strip()).closeClient(true).build();
            }
            default -> throw new ResourceException("txlock resource adapter: backend '" + backend
                    + "' is not known: set the config property backend to jdbc, redis or zookeeper");
        }
    }

    private Strategy strategy() {
        try {
            return Strategy.valueOf(strategy.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("strategy '" + strategy + "' is not known: set it to one of "
                    + java.util.Arrays.toString(Strategy.values()), e);
        }
    }

    private static DataSource lookUp(String property, String name) throws ResourceException {
        try {
            Object found = new InitialContext().lookup(name.strip());
            if (found instanceof DataSource dataSource) {
                return dataSource;
            }
            throw new ResourceException(property + " '" + name + "' names a " + found.getClass().getName()
                    + ", not a javax.sql.DataSource");
        } catch (NamingException e) {
            throw new ResourceException(property + " '" + name + "' is not bound in JNDI (" + e.getMessage() + "): name"
                    + " the application's datasource, e.g. java:app/jdbc/orders or java:jboss/datasources/OrdersDS", e);
        }
    }

    private static HostAndPort hostAndPort(String endpoint) {
        int colon = endpoint.lastIndexOf(':');
        try {
            if (colon > 0) {
                return new HostAndPort(endpoint.substring(0, colon), Integer.parseInt(endpoint.substring(colon + 1)));
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("redisEndpoints: '" + endpoint + "' is not host:port, e.g. 127.0.0.1:6379");
    }

    /** Parses a duration property: 500ms, 5s, 2m, 1h, 1d, an ISO-8601 duration, 0, or (if allowed) forever. */
    static Duration duration(String property, String text, boolean foreverAllowed) {
        Duration d;
        try {
            d = LockOptions.parseDuration(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(property + " " + e.getMessage(), e);
        }
        if (d.equals(LockOptions.FOREVER) && !foreverAllowed) {
            throw new IllegalArgumentException(property + " cannot be 'forever': give a duration such as '30s'");
        }
        return d;
    }

    @Override
    public ResourceAdapter getResourceAdapter() {
        return resourceAdapter;
    }

    @Override
    public void setResourceAdapter(ResourceAdapter adapter) {
        this.resourceAdapter = (TxlockResourceAdapter) adapter;
    }

    /** @return jdbc, redis or zookeeper */
    public String getBackend() {
        return backend;
    }

    /** @param backend jdbc, redis or zookeeper */
    public void setBackend(String backend) {
        this.backend = backend;
    }

    /** @return the JNDI name of the JTA datasource */
    public String getDataSourceJndiName() {
        return dataSourceJndiName;
    }

    /** @param dataSourceJndiName the JNDI name of the JTA datasource */
    public void setDataSourceJndiName(String dataSourceJndiName) {
        this.dataSourceJndiName = dataSourceJndiName;
    }

    /** @return the JNDI name of the non-JTA datasource, or empty */
    public String getLeaseDataSourceJndiName() {
        return leaseDataSourceJndiName;
    }

    /** @param leaseDataSourceJndiName the JNDI name of a non-JTA datasource on the same database, or empty */
    public void setLeaseDataSourceJndiName(String leaseDataSourceJndiName) {
        this.leaseDataSourceJndiName = leaseDataSourceJndiName;
    }

    /** @return the JDBC strategy */
    public String getStrategy() {
        return strategy;
    }

    /** @param strategy the JDBC strategy */
    public void setStrategy(String strategy) {
        this.strategy = strategy;
    }

    /** @return the lock table */
    public String getTable() {
        return table;
    }

    /** @param table the lock table */
    public void setTable(String table) {
        this.table = table;
    }

    /** @return the Redis endpoints */
    public String getRedisEndpoints() {
        return redisEndpoints;
    }

    /** @param redisEndpoints host:port, or three or more separated by commas */
    public void setRedisEndpoints(String redisEndpoints) {
        this.redisEndpoints = redisEndpoints;
    }

    /** @return the Redis key prefix, or empty for the provider's default */
    public String getRedisKeyPrefix() {
        return redisKeyPrefix;
    }

    /** @param redisKeyPrefix the Redis key prefix, or empty for the provider's default */
    public void setRedisKeyPrefix(String redisKeyPrefix) {
        this.redisKeyPrefix = redisKeyPrefix;
    }

    /** @return the ZooKeeper connect string */
    public String getZookeeperConnectString() {
        return zookeeperConnectString;
    }

    /** @param zookeeperConnectString the ZooKeeper connect string */
    public void setZookeeperConnectString(String zookeeperConnectString) {
        this.zookeeperConnectString = zookeeperConnectString;
    }

    /** @return the ZooKeeper base path */
    public String getZookeeperBasePath() {
        return zookeeperBasePath;
    }

    /** @param zookeeperBasePath the parent node of the lock nodes */
    public void setZookeeperBasePath(String zookeeperBasePath) {
        this.zookeeperBasePath = zookeeperBasePath;
    }

    /** @return the default wait */
    public String getDefaultWait() {
        return defaultWait;
    }

    /** @param defaultWait the default wait, e.g. 30s */
    public void setDefaultWait(String defaultWait) {
        this.defaultWait = defaultWait;
    }

    /** @return the default lease */
    public String getDefaultLease() {
        return defaultLease;
    }

    /** @param defaultLease the default lease, e.g. 30s */
    public void setDefaultLease(String defaultLease) {
        this.defaultLease = defaultLease;
    }
}
