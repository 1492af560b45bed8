package io.txlock.bench;

import java.util.ArrayList;
import java.util.List;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's {@link org.redisson.api.RLock} on the backend's Redis master: {@code tryLock(wait)} without a lease time, so that
 * Redisson's watchdog renews the lock while it is held (its timeout set to the run's lease), as txlock's LEASE locks
 * are renewed; a waiter subscribes to the lock's channel and is woken by the holder's unlock. Each node is one
 * Redisson client, up to {@value #MAX_CLIENTS} shared round-robin as the ZooKeeper backend shares its sessions, with
 * a small connection pool and {@value #NETTY_THREADS} Netty threads instead of 24 idle connections and 32 threads.
 * Keys live under the backend's prefix.
 */
final class RedissonPeer implements Peer {

    static final String NAME = "Redisson";
    static final int MAX_CLIENTS = ZooKeeperBackend.MAX_SESSIONS;
    private static final int NETTY_THREADS = 4;

    private final String address;
    private final String prefix;

    RedissonPeer(String address, String prefix) {
        this.address = address;
        this.prefix = prefix;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String describe() {
        return "Redisson RLock.tryLock(wait) with its watchdog renewing the lease + unlock (Lua scripts; a waiter is woken by"
                + " the unlock's PUBLISH)";
    }

    @Override
    public Nodes open(int nodes, LockWorkload workload) {
        List<RedissonClient> clients = new ArrayList<>();
        int perClient = (nodes + Math.min(nodes, MAX_CLIENTS) - 1) / Math.min(nodes, MAX_CLIENTS);
        try {
            for (int i = 0; i < Math.min(nodes, MAX_CLIENTS); i++) {
                Config config = new Config();
                config.setLockWatchdogTimeout(workload.lease().toMillis());
                config.setNettyThreads(NETTY_THREADS);
                config.useSingleServer().setAddress("redis://" + address).setConnectionMinimumIdleSize(1)
                        .setConnectionPoolSize(Math.max(4, 2 * perClient)).setTimeout(5_000);
                clients.add(Redisson.create(config));
            }
        } catch (RuntimeException e) {
            clients.forEach(RedissonClient::shutdown);
            throw e;
        }
        return Nodes.of(worker -> {
            RedissonClient client = clients.get(worker % nodes % clients.size());
            return PeerLocker.overLocks(name -> client.getLock(prefix + "redisson:" + name), workload.waitTime());
        }, () -> clients.forEach(RedissonClient::shutdown));
    }
}
