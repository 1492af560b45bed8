package io.txlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.txlock.LockBackendException;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.spi.TransactionSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.ZKPaths;
import org.apache.curator.utils.ZookeeperFactory;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A lock node created on the server whose reply never reached the client: Curator's protected mode must find it
 * again (and the provider read its token), or delete it, never leave an orphan that blocks the queue.
 */
class LostCreateReplyTest {

    private static TestingServer server;
    private static CuratorFramework observer;

    private final String basePath = ZooKeeperTesting.randomBasePath();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    /** How many more sequential creates succeed on the server but answer "connection lost". */
    private final AtomicInteger repliesToLose = new AtomicInteger();
    /** While set, the listing with which Curator looks for its protected node fails too. */
    private final AtomicBoolean searchFails = new AtomicBoolean();

    @BeforeAll
    static void startServer() throws Exception {
        server = ZooKeeperTesting.server();
        observer = ZooKeeperTesting.client(server.getConnectString());
    }

    @AfterAll
    static void stopServer() throws Exception {
        observer.close();
        server.close();
    }

    @AfterEach
    void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private LockManager manager(CuratorFramework client) {
        LockManager locks = LockManager.builder(ZooKeeperLockProvider.builder(client).basePath(basePath).closeClient(true).build())
                .transactions(TransactionSupport.none()).build();
        toClose.add(locks);
        return locks;
    }

    /** A client whose ZooKeeper handle loses replies as the test says. */
    private CuratorFramework unluckyClient(int retries) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(server.getConnectString())
                .sessionTimeoutMs(ZooKeeperTesting.SESSION_TIMEOUT_MS)
                .connectionTimeoutMs(ZooKeeperTesting.CONNECTION_TIMEOUT_MS)
                .retryPolicy(new RetryNTimes(retries, 10))
                .zookeeperFactory(new ZookeeperFactory() {
                    @Override
                    public ZooKeeper newZooKeeper(String connectString, int sessionTimeout, Watcher watcher,
                            boolean canBeReadOnly) throws Exception {
                        return newZooKeeper(connectString, sessionTimeout, watcher, canBeReadOnly, new ZKClientConfig());
                    }

                    @Override
                    public ZooKeeper newZooKeeper(String connectString, int sessionTimeout, Watcher watcher,
                            boolean canBeReadOnly, ZKClientConfig config) throws Exception {
                        return new UnluckyZooKeeper(connectString, sessionTimeout, watcher, canBeReadOnly, config);
                    }
                })
                .build();
        client.start();
        client.blockUntilConnected();
        return client;
    }

    private final class UnluckyZooKeeper extends ZooKeeper {
        UnluckyZooKeeper(String connectString, int sessionTimeout, Watcher watcher, boolean canBeReadOnly,
                ZKClientConfig config) throws java.io.IOException {
            super(connectString, sessionTimeout, watcher, canBeReadOnly, config);
        }

        @Override
        public String create(String path, byte[] data, List<ACL> acl, CreateMode mode, Stat stat, long ttl)
                throws KeeperException, InterruptedException {
            if (mode.isSequential() && repliesToLose.get() > 0) {
                super.create(path, data, acl, mode, new Stat(), ttl);
                repliesToLose.decrementAndGet();
                throw new KeeperException.ConnectionLossException(); // created on the server, the reply lost
            }
            return super.create(path, data, acl, mode, stat, ttl);
        }

        @Override
        public List<String> getChildren(String path, boolean watch) throws KeeperException, InterruptedException {
            if (searchFails.get()) {
                throw new KeeperException.ConnectionLossException();
            }
            return super.getChildren(path, watch);
        }
    }

    private List<String> queue(String name) throws Exception {
        try {
            return LockNodes.queue(observer.getChildren().forPath(ZKPaths.makePath(basePath, ZNodeNames.encode(name))));
        } catch (KeeperException.NoNodeException none) {
            return List.of();
        }
    }

    @Test
    void nodeWhoseCreateReplyWasLostIsFoundAgainAndGrantedWithItsOwnToken() throws Exception {
        LockManager locks = manager(unluckyClient(3));
        repliesToLose.set(1);

        try (LockHandle handle = locks.acquire("lost-reply")) {
            assertThat(repliesToLose.get()).as("a create whose reply was lost").isZero();
            List<String> queue = queue("lost-reply");
            assertThat(queue).as("one node, no orphan").hasSize(1);
            Stat stat = observer.checkExists().forPath(ZKPaths.makePath(basePath, ZNodeNames.encode("lost-reply"), queue.get(0)));
            assertThat(handle.fencingToken()).isEqualTo(stat.getCzxid());
        }
        assertThat(queue("lost-reply")).isEmpty();
    }

    @Test
    void nodeOfACreateThatFailedForGoodIsDeletedNotLeftToBlockTheQueue() throws Exception {
        LockManager unlucky = manager(unluckyClient(1));
        LockManager other = manager(ZooKeeperTesting.client(server.getConnectString()));
        repliesToLose.set(1);
        searchFails.set(true);

        assertThatThrownBy(() -> unlucky.acquire("orphan")).isInstanceOf(LockBackendException.class);

        await().atMost(Duration.ofSeconds(20)).until(() -> queue("orphan").isEmpty());
        try (LockHandle handle = other.acquire("orphan", io.txlock.LockOptions.defaults().withWait(Duration.ofSeconds(20)))) {
            assertThat(handle.isValid()).isTrue();
        }
    }
}
