package io.txlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.spi.TransactionSupport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.ZKPaths;
import org.apache.curator.utils.ZookeeperFactory;
import org.apache.zookeeper.AsyncCallback;
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
 * The requests an uncontended lock costs ZooKeeper, counted by the client's ZooKeeper handle: as many as Curator's
 * {@code InterProcessMutex} sends (create the node, list the queue, delete the node), and the watch on the holder's
 * node only for a grant held a while.
 */
class UncontendedRequestsTest {

    private static final Duration AWAIT = Duration.ofSeconds(20);

    private static TestingServer server;
    private static CuratorFramework observer;

    private final String basePath = ZooKeeperTesting.randomBasePath();
    /** "operation path" of every request under {@link #basePath}, in the order the provider sent them. */
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private CuratorFramework client;
    private LockManager locks;

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
    void close() {
        if (locks != null) {
            locks.close();
        }
    }

    /** @param watchAfter how old a grant is when its node gets its watch, or null for the default */
    private LockManager countingManager(Duration watchAfter) throws InterruptedException {
        client = CuratorFrameworkFactory.builder()
                .connectString(server.getConnectString())
                .sessionTimeoutMs(ZooKeeperTesting.SESSION_TIMEOUT_MS)
                .connectionTimeoutMs(ZooKeeperTesting.CONNECTION_TIMEOUT_MS)
                .retryPolicy(new RetryNTimes(3, 200))
                .zookeeperFactory(new ZookeeperFactory() {
                    @Override
                    public ZooKeeper newZooKeeper(String connectString, int sessionTimeout, Watcher watcher, boolean canBeReadOnly)
                            throws Exception {
                        return newZooKeeper(connectString, sessionTimeout, watcher, canBeReadOnly, new ZKClientConfig());
                    }

                    @Override
                    public ZooKeeper newZooKeeper(String connectString, int sessionTimeout, Watcher watcher, boolean canBeReadOnly,
                            ZKClientConfig config) throws Exception {
                        return new CountingZooKeeper(connectString, sessionTimeout, watcher, canBeReadOnly, config);
                    }
                })
                .build();
        client.start();
        client.blockUntilConnected();
        ZooKeeperLockProvider.Builder provider = ZooKeeperLockProvider.builder(client).basePath(basePath).closeClient(true);
        if (watchAfter != null) {
            provider.watchAfter(watchAfter);
        }
        locks = LockManager.builder(provider.build()).transactions(TransactionSupport.none()).build();
        return locks;
    }

    /**
     * The lock's parent node, kept by a child that is no lock node (ZooKeeper deletes an empty container parent, and
     * creating it again would add requests that only a lock's first use costs).
     */
    private String keptParent(String name) throws Exception {
        String parent = ZKPaths.makePath(basePath, ZNodeNames.encode(name));
        observer.create().creatingParentsIfNeeded().withMode(CreateMode.PERSISTENT).forPath(ZKPaths.makePath(parent, "kept"));
        return parent;
    }

    private List<String> operations() {
        return requests.stream().map(r -> r.substring(0, r.indexOf(' '))).toList();
    }

    /** Each grant is released long before its watch is due, however slow the machine. */
    @Test
    void anUncontendedAcquireAndReleaseIsOneCreateOneListingAndOneDelete() throws Exception {
        String parent = keptParent("uncontended");
        LockManager locks = countingManager(Duration.ofHours(1));

        locks.acquire("uncontended").release();
        LockHandle again = locks.acquire("uncontended");
        again.release();

        assertThat(operations()).as("requests under %s: %s", basePath, requests)
                .containsExactly("create", "getChildren", "delete", "create", "getChildren", "delete");
        assertThat(requests).allMatch(r -> r.substring(r.indexOf(' ') + 1).startsWith(parent));
    }

    @Test
    void aGrantHeldAWhileWatchesItsNodeAndLearnsOfItsDeletion() throws Exception {
        keptParent("held");
        LockManager locks = countingManager(null);
        LockHandle held = locks.acquire("held");
        CountDownLatch lost = new CountDownLatch(1);
        held.onLost(lost::countDown);

        await("the holder's node watched").atMost(AWAIT).until(() -> operations().contains("getData"));
        String node = requests.stream().filter(r -> r.startsWith("getData ")).findFirst().orElseThrow().substring("getData ".length());
        observer.delete().forPath(node);

        assertThat(lost.await(AWAIT.toSeconds(), TimeUnit.SECONDS)).as("the holder told it lost the lock").isTrue();
        assertThat(held.isValid()).isFalse();
    }

    /** Notes every request under the base path once, also where one overload of ZooKeeper calls another. */
    private final class CountingZooKeeper extends ZooKeeper {
        private final ThreadLocal<Boolean> inside = ThreadLocal.withInitial(() -> false);

        CountingZooKeeper(String connectString, int sessionTimeout, Watcher watcher, boolean canBeReadOnly, ZKClientConfig config)
                throws java.io.IOException {
            super(connectString, sessionTimeout, watcher, canBeReadOnly, config);
        }

        private interface Request<T> {
            T send() throws KeeperException, InterruptedException;
        }

        private <T> T note(String operation, String path, Request<T> request) throws KeeperException, InterruptedException {
            if (inside.get()) {
                return request.send();
            }
            if (path.startsWith(basePath)) {
                requests.add(operation + " " + path);
            }
            inside.set(true);
            try {
                return request.send();
            } finally {
                inside.set(false);
            }
        }

        private void noteAsync(String operation, String path, Runnable request) {
            try {
                note(operation, path, () -> {
                    request.run();
                    return null;
                });
            } catch (KeeperException | InterruptedException impossible) {
                throw new IllegalStateException(impossible);
            }
        }

        @Override
        public String create(String path, byte[] data, List<ACL> acl, CreateMode mode) throws KeeperException, InterruptedException {
            return note("create", path, () -> super.create(path, data, acl, mode));
        }

        @Override
        public String create(String path, byte[] data, List<ACL> acl, CreateMode mode, Stat stat)
                throws KeeperException, InterruptedException {
            return note("create", path, () -> super.create(path, data, acl, mode, stat));
        }

        @Override
        public String create(String path, byte[] data, List<ACL> acl, CreateMode mode, Stat stat, long ttl)
                throws KeeperException, InterruptedException {
            return note("create", path, () -> super.create(path, data, acl, mode, stat, ttl));
        }

        @Override
        public void create(String path, byte[] data, List<ACL> acl, CreateMode mode, AsyncCallback.StringCallback cb, Object ctx) {
            noteAsync("create", path, () -> super.create(path, data, acl, mode, cb, ctx));
        }

        @Override
        public void create(String path, byte[] data, List<ACL> acl, CreateMode mode, AsyncCallback.Create2Callback cb, Object ctx) {
            noteAsync("create", path, () -> super.create(path, data, acl, mode, cb, ctx));
        }

        @Override
        public void create(String path, byte[] data, List<ACL> acl, CreateMode mode, AsyncCallback.Create2Callback cb, Object ctx,
                long ttl) {
            noteAsync("create", path, () -> super.create(path, data, acl, mode, cb, ctx, ttl));
        }

        @Override
        public void delete(String path, int version) throws InterruptedException, KeeperException {
            note("delete", path, () -> {
                super.delete(path, version);
                return null;
            });
        }

        @Override
        public void delete(String path, int version, AsyncCallback.VoidCallback cb, Object ctx) {
            noteAsync("delete", path, () -> super.delete(path, version, cb, ctx));
        }

        @Override
        public Stat exists(String path, Watcher watcher) throws KeeperException, InterruptedException {
            return note("exists", path, () -> super.exists(path, watcher));
        }

        @Override
        public Stat exists(String path, boolean watch) throws KeeperException, InterruptedException {
            return note("exists", path, () -> super.exists(path, watch));
        }

        @Override
        public void exists(String path, Watcher watcher, AsyncCallback.StatCallback cb, Object ctx) {
            noteAsync("exists", path, () -> super.exists(path, watcher, cb, ctx));
        }

        @Override
        public void exists(String path, boolean watch, AsyncCallback.StatCallback cb, Object ctx) {
            noteAsync("exists", path, () -> super.exists(path, watch, cb, ctx));
        }

        @Override
        public byte[] getData(String path, Watcher watcher, Stat stat) throws KeeperException, InterruptedException {
            return note("getData", path, () -> super.getData(path, watcher, stat));
        }

        @Override
        public byte[] getData(String path, boolean watch, Stat stat) throws KeeperException, InterruptedException {
            return note("getData", path, () -> super.getData(path, watch, stat));
        }

        @Override
        public void getData(String path, Watcher watcher, AsyncCallback.DataCallback cb, Object ctx) {
            noteAsync("getData", path, () -> super.getData(path, watcher, cb, ctx));
        }

        @Override
        public void getData(String path, boolean watch, AsyncCallback.DataCallback cb, Object ctx) {
            noteAsync("getData", path, () -> super.getData(path, watch, cb, ctx));
        }

        @Override
        public List<String> getChildren(String path, Watcher watcher) throws KeeperException, InterruptedException {
            return note("getChildren", path, () -> super.getChildren(path, watcher));
        }

        @Override
        public List<String> getChildren(String path, boolean watch) throws KeeperException, InterruptedException {
            return note("getChildren", path, () -> super.getChildren(path, watch));
        }

        @Override
        public List<String> getChildren(String path, Watcher watcher, Stat stat) throws KeeperException, InterruptedException {
            return note("getChildren", path, () -> super.getChildren(path, watcher, stat));
        }

        @Override
        public List<String> getChildren(String path, boolean watch, Stat stat) throws KeeperException, InterruptedException {
            return note("getChildren", path, () -> super.getChildren(path, watch, stat));
        }

        @Override
        public void getChildren(String path, Watcher watcher, AsyncCallback.ChildrenCallback cb, Object ctx) {
            noteAsync("getChildren", path, () -> super.getChildren(path, watcher, cb, ctx));
        }

        @Override
        public void getChildren(String path, boolean watch, AsyncCallback.ChildrenCallback cb, Object ctx) {
            noteAsync("getChildren", path, () -> super.getChildren(path, watch, cb, ctx));
        }

        @Override
        public void getChildren(String path, Watcher watcher, AsyncCallback.Children2Callback cb, Object ctx) {
            noteAsync("getChildren", path, () -> super.getChildren(path, watcher, cb, ctx));
        }

        @Override
        public void getChildren(String path, boolean watch, AsyncCallback.Children2Callback cb, Object ctx) {
            noteAsync("getChildren", path, () -> super.getChildren(path, watch, cb, ctx));
        }
    }
}
