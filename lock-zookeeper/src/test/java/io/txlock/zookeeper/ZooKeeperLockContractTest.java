package io.txlock.zookeeper;

import io.txlock.spi.LockProvider;
import io.txlock.testkit.LockContractTest;
import io.txlock.testkit.ProviderRecipe;
import java.net.ServerSocket;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The shared contract on one standalone ZooKeeper server; every provider has its own client, so its own session. */
class ZooKeeperLockContractTest extends LockContractTest {

    private static TestingServer server;
    private static String basePath;

    @BeforeAll
    static void startServer() throws Exception {
        server = ZooKeeperTesting.server();
        basePath = ZooKeeperTesting.randomBasePath();
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    private String config() {
        return ZooKeeperProviderFactory.config(server.getConnectString(), basePath, ZooKeeperTesting.SESSION_TIMEOUT_MS);
    }

    @Override
    protected LockProvider newProvider() {
        return new ZooKeeperProviderFactory().create(config());
    }

    @Override
    protected ProviderRecipe recipe() {
        return new ProviderRecipe(ZooKeeperProviderFactory.class, config());
    }

    @Override
    protected LockProvider newUnreachableProvider() {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        CuratorFramework client = CuratorFrameworkFactory.builder().connectString("127.0.0.1:" + closedPort)
                .sessionTimeoutMs(2000).connectionTimeoutMs(500).retryPolicy(new RetryNTimes(1, 100)).build();
        client.start();
        return ZooKeeperLockProvider.builder(client).basePath(basePath).closeClient(true).build();
    }

    /** A ZooKeeper lock outlives its dead holder until the holder's session expires, whatever the lease. */
    @Override
    protected Duration releaseAfterHolderDeath(Duration lease) {
        return Duration.ofMillis(ZooKeeperTesting.SESSION_TIMEOUT_MS);
    }
}
