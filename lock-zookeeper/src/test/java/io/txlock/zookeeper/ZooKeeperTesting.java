package io.txlock.zookeeper;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.client.FourLetterWordMain;

/** Private ZooKeeper servers and clients for the tests: random ports, temporary data directories. */
final class ZooKeeperTesting {

    /** Session timeout of most test clients: how long a dead holder's lock outlives it. */
    static final int SESSION_TIMEOUT_MS = 4000;
    static final int CONNECTION_TIMEOUT_MS = 3000;
    private static final int TICK_MS = 250;

    static {
        // the server reads these as system properties: empty container parents vanish within 200 ms, and the
        // tests may ask for watches ("wchp") and statistics
        System.setProperty("znode.container.checkIntervalMs", "200");
        System.setProperty("zookeeper.4lw.commands.whitelist", "*");
    }

    private ZooKeeperTesting() {
    }

    /** @return a started standalone server on a random free port */
    static TestingServer server() throws Exception {
        return new TestingServer(spec(-1), true);
    }

    /** @return a started ensemble of {@code size} servers on random free ports */
    static TestingCluster cluster(int size) throws Exception {
        InstanceSpec[] specs = new InstanceSpec[size];
        for (int i = 0; i < size; i++) {
            specs[i] = spec(i + 1);
        }
        TestingCluster cluster = new TestingCluster(specs);
        cluster.start();
        return cluster;
    }

    private static InstanceSpec spec(int serverId) {
        Map<String, Object> properties = new HashMap<>();
        properties.put("maxSessionTimeout", "60000");
        return new InstanceSpec(null, -1, -1, -1, true, serverId, TICK_MS, -1, properties);
    }

    /** @return a started client with a short session timeout, connected */
    static CuratorFramework client(String connectString) throws InterruptedException {
        return client(connectString, SESSION_TIMEOUT_MS);
    }

    static CuratorFramework client(String connectString, int sessionTimeoutMs) throws InterruptedException {
        return started(builder(connectString, sessionTimeoutMs).build(), connectString);
    }

    /**
     * @return a started client that only ever connects to {@code connectString}: Curator's ensemble tracker, which
     *     would learn the other servers of an ensemble from its configuration and fail over to them, is off
     */
    static CuratorFramework pinnedClient(String connectString, int sessionTimeoutMs) throws InterruptedException {
        return started(builder(connectString, sessionTimeoutMs).ensembleTracker(false).build(), connectString);
    }

    private static CuratorFrameworkFactory.Builder builder(String connectString, int sessionTimeoutMs) {
        return CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs(sessionTimeoutMs)
                .connectionTimeoutMs(CONNECTION_TIMEOUT_MS)
                .retryPolicy(new RetryNTimes(3, 200));
    }

    private static CuratorFramework started(CuratorFramework client, String connectString) throws InterruptedException {
        client.start();
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
            client.close();
            throw new IllegalStateException("no connection to ZooKeeper at " + connectString);
        }
        return client;
    }

    /** @return a base path no other test run uses */
    static String randomBasePath() {
        return "/txlock-test-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** @return the answer of a four-letter-word command */
    static String fourLetterWord(String host, int port, String command) throws Exception {
        return FourLetterWordMain.send4LetterWord(host, port, command);
    }

    /** @return the watched paths per session id ("0x..."), from the server's "wchp" report */
    static Map<String, List<String>> watchesBySession(String host, int port) throws Exception {
        Map<String, List<String>> bySession = new HashMap<>();
        String path = null;
        for (String line : fourLetterWord(host, port, "wchp").split("\n")) {
            if (line.startsWith("/")) {
                path = line.trim();
            } else if (!line.isBlank() && path != null) {
                bySession.computeIfAbsent(line.trim(), k -> new java.util.ArrayList<>()).add(path);
            }
        }
        return bySession;
    }
}
