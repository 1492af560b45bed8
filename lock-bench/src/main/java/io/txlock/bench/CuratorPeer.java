package io.txlock.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

/**
 * Curator's {@link InterProcessMutex} (sequential ephemeral nodes, a watch on the predecessor) on the backend's
 * ZooKeeper, one mutex per lock name and worker, kept for the run as an application keeps its mutexes. Each node is
 * one Curator client (its own session), up to {@link ZooKeeperBackend#MAX_SESSIONS} shared round-robin as txlock's
 * nodes share them.
 */
final class CuratorPeer implements Peer {

    static final String NAME = "Curator";

    private final ZooKeeperBackend backend;
    private final String base;

    CuratorPeer(ZooKeeperBackend backend, String base) {
        this.backend = backend;
        this.base = base;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String describe() {
        return "Curator InterProcessMutex.acquire(wait) + release (sequential ephemeral node, watch on the predecessor)";
    }

    @Override
    public Nodes open(int nodes, LockWorkload workload) throws InterruptedException {
        List<CuratorFramework> clients = new ArrayList<>();
        try {
            for (int i = 0; i < Math.min(nodes, ZooKeeperBackend.MAX_SESSIONS); i++) {
                clients.add(backend.client());
            }
        } catch (InterruptedException | RuntimeException e) {
            clients.forEach(CuratorFramework::close);
            throw e;
        }
        return Nodes.of(worker -> {
            CuratorFramework client = clients.get(worker % nodes % clients.size());
            Map<String, InterProcessMutex> mutexes = new HashMap<>();
            return new PeerLocker<InterProcessMutex>(workload.waitTime(), (name, wait) -> {
                InterProcessMutex mutex = mutexes.computeIfAbsent(name, n -> new InterProcessMutex(client, base + "/" + n));
                return mutex.acquire(wait.toMillis(), TimeUnit.MILLISECONDS) ? mutex : null;
            }, InterProcessMutex::release);
        }, () -> clients.forEach(CuratorFramework::close));
    }
}
