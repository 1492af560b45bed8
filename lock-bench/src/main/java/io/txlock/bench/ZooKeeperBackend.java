package io.txlock.bench;

import io.txlock.jdbc.JdbcDialect;
import io.txlock.zookeeper.ZooKeeperLockProvider;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * ZooKeeper through Curator and {@code txlock-lock-zookeeper}. Without an address, an embedded standalone
 * server (curator-test's {@code TestingServer}, a real ZooKeeper server in this JVM) on a random port, served to
 * worker JVMs too. The nodes of a site share up to {@value #MAX_SESSIONS} Curator clients round-robin (a server
 * allows 60 connections per client host by default), each its own ZooKeeper session, whose timeout is the run's
 * lease: how long a killed holder's lock outlives it. A worker JVM is one node with one session. The bench's
 * locks live under a fresh base path, deleted when the backend closes; orders go to an embedded H2 database.
 */
final class ZooKeeperBackend implements Backend {

    static final String STRATEGY = "EPHEMERAL_SEQUENTIAL";
    static final int MAX_SESSIONS = 16;

    private final BackendSpec spec;
    private final TestingServer server;
    private final String connect;
    private final String basePath;
    private final int sessionMillis;
    private final EmbeddedOrders orders;
    private final CuratorFramework admin;

    private ZooKeeperBackend(BackendSpec spec, int connections, Duration lease) throws Exception {
        this.spec = spec;
        this.sessionMillis = (int) Math.max(1000, Math.min(Integer.MAX_VALUE, lease.toMillis()));
        if (spec.url() == null) {
            Map<String, Object> properties = new HashMap<>();
            properties.put("maxSessionTimeout", "600000");
            properties.put("minSessionTimeout", "500");
            properties.put("maxClientCnxns", "0");
            this.server = new TestingServer(new InstanceSpec(Files.createTempDirectory("txlock-bench-zk-").toFile(), -1, -1, -1, true,
                    -1, 250, -1, properties), true);
            this.connect = server.getConnectString();
        } else {
            this.server = null;
            this.connect = spec.url();
        }
        this.basePath = spec.prepared() ? spec.namespace() : "/txlock-bench-" + UUID.randomUUID().toString().substring(0, 8);
        this.orders = new EmbeddedOrders(connections);
        this.admin = client();
    }

    /**
     * @param spec the connect string (or none, for an embedded server)
     * @param connections connections of the embedded orders database
     * @param lease the session timeout of every client
     * @return the backend
     * @throws Exception if the server cannot be started or reached
     */
    static ZooKeeperBackend open(BackendSpec spec, int connections, Duration lease) throws Exception {
        return new ZooKeeperBackend(spec, connections, lease);
    }

    CuratorFramework client() throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder().connectString(connect).sessionTimeoutMs(sessionMillis)
                .connectionTimeoutMs(Math.min(sessionMillis, 5000)).retryPolicy(new RetryNTimes(3, 200)).build();
        client.start();
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
            client.close();
            throw new IllegalStateException("no connection to ZooKeeper at " + connect + " within 30 s (start it, or point"
                    + " --zookeeper at one; without --zookeeper the bench starts its own)");
        }
        return client;
    }

    @Override
    public BackendKind kind() {
        return BackendKind.ZOOKEEPER;
    }

    /**
     * The embedded server runs in this JVM; it counts the packets it receives (requests and pings) in its JMX bean.
     * A server given by {@code --zookeeper} is not read.
     */
    @Override
    public ServerUsage openServerUsage() {
        if (server == null) {
            return ServerUsage.none("ZooKeeper at " + connect + " is not read");
        }
        javax.management.MBeanServer beans = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        javax.management.ObjectName bean;
        try {
            bean = new javax.management.ObjectName("org.apache.ZooKeeperService:name0=StandaloneServer_port" + server.getPort());
        } catch (javax.management.MalformedObjectNameException e) {
            throw new IllegalStateException(e);
        }
        ServerUsage.Counter counter = new ServerUsage.Counter() {
            @Override
            public long read() throws Exception {
                return ((Number) beans.getAttribute(bean, "PacketsReceived")).longValue();
            }

            @Override
            public String note() {
                return "ZooKeeper counts the packets it receives: requests and the sessions' pings";
            }
        };
        return ServerUsage.embedded("embedded ZooKeeper", "packets", counter, null);
    }

    @Override
    public String describe() {
        return "ZooKeeper " + (server != null ? "server " + org.apache.zookeeper.Version.getFullVersion().split(",")[0]
                + " embedded (curator-test TestingServer) at " : "at ") + connect + ", Curator client, session timeout "
                + sessionMillis + " ms; orders in embedded H2";
    }

    @Override
    public List<String> strategies() {
        return List.of(STRATEGY);
    }

    @Override
    public Site openSite(String strategy, int nodes) {
        List<AutoCloseable> clients = new ArrayList<>();
        return Site.of(nodes, i -> {
            if (i < MAX_SESSIONS) {
                clients.add(client());
            }
            CuratorFramework client = (CuratorFramework) clients.get(i % clients.size());
            return ZooKeeperLockProvider.builder(client).basePath(basePath + "/locks").build();
        }, orders.transactions(), JdbcDialect.H2, clients);
    }

    @Override
    public Optional<RawLocks> openRaw(String strategy) {
        return Optional.of(new ZooKeeperRawLocks(this, basePath + "/raw"));
    }

    /** Curator's InterProcessMutex, under the backend's base path. */
    @Override
    public List<Peer> peers() {
        return List.of(new CuratorPeer(this, basePath + "/peer"));
    }

    @Override
    public BackendSpec childSpec() {
        return new BackendSpec(BackendKind.ZOOKEEPER, connect, null, "", basePath, true);
    }

    @Override
    public void close() {
        try {
            if (!spec.prepared()) {
                admin.delete().deletingChildrenIfNeeded().forPath(basePath);
            }
        } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
            // nothing was created
        } catch (Exception e) {
            System.err.println("could not delete the bench's znodes under " + basePath + ": " + e);
        } finally {
            admin.close();
            orders.close();
            if (server != null) {
                try {
                    server.close();
                } catch (java.io.IOException e) {
                    System.err.println("could not stop the embedded ZooKeeper: " + e);
                }
            }
        }
    }
}
