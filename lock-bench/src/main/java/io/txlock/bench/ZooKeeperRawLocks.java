package io.txlock.bench;

import java.util.Collection;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * ZooKeeper's bare lock, without txlock, each session on a Curator client of its own. The cycle is the least a
 * ZooKeeper lock costs: create an ephemeral node, delete it (retried after 1 ms while another holder's node
 * exists). The handoff is Curator's own {@link InterProcessMutex}: sequential nodes and a watch on the
 * predecessor, the recipe txlock's provider is measured against.
 */
final class ZooKeeperRawLocks implements RawLocks {

    private final ZooKeeperBackend backend;
    private final String base;

    ZooKeeperRawLocks(ZooKeeperBackend backend, String base) {
        this.backend = backend;
        this.base = base;
    }

    @Override
    public String describeCycle() {
        return "create EPHEMERAL node + delete";
    }

    @Override
    public String describeHandoff() {
        return "Curator InterProcessMutex (sequential nodes, watch on the predecessor)";
    }

    @Override
    public void prepare(Collection<String> names) {
        // parents are created on first use
    }

    @Override
    public Session cycleSession() throws Exception {
        CuratorFramework client = backend.client();
        return new Session() {
            private String held;

            @Override
            public void lock(String name) throws Exception {
                String path = base + "/cycle/" + name;
                while (true) {
                    try {
                        client.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(path);
                        held = path;
                        return;
                    } catch (KeeperException.NodeExistsException e) {
                        LockSupport.parkNanos(1_000_000);
                    }
                }
            }

            @Override
            public void unlock() throws Exception {
                client.delete().forPath(held);
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }

    @Override
    public Session blockingSession() throws Exception {
        CuratorFramework client = backend.client();
        return new Session() {
            private InterProcessMutex held;

            @Override
            public void lock(String name) throws Exception {
                InterProcessMutex mutex = new InterProcessMutex(client, base + "/mutex/" + name);
                mutex.acquire();
                held = mutex;
            }

            @Override
            public void unlock() throws Exception {
                held.release();
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }

    @Override
    public void close() {
        // each session closed its own client
    }
}
