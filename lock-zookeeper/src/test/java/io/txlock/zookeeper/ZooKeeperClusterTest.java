package io.txlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txlock.LockBackendException;
import io.txlock.LockException;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.spi.TransactionSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.utils.ZKPaths;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Four contenders, each with its own session on a three-server ensemble, take one lock in a loop while the
 * leader is killed and later restarted. Nobody may ever be inside while another is, and tokens must rise.
 */
class ZooKeeperClusterTest {

    private static final int WORKERS = 4;
    private static final int GRANTS_PER_PHASE = 25;
    private static final Duration PHASE = Duration.ofSeconds(60);

    private TestingCluster cluster;
    private final List<LockManager> managers = new ArrayList<>();
    private final ExecutorService workers = Executors.newFixedThreadPool(WORKERS);

    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger grants = new AtomicInteger();
    private final AtomicInteger backendErrors = new AtomicInteger();
    /** Tokens in the order their holders entered; written only by the one holder inside. */
    private final List<Long> tokens = new ArrayList<>();
    private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();

    @BeforeEach
    void startCluster() throws Exception {
        cluster = ZooKeeperTesting.cluster(3);
    }

    @AfterEach
    void stopCluster() throws Exception {
        running.set(false);
        workers.shutdown();
        workers.awaitTermination(60, TimeUnit.SECONDS);
        managers.forEach(LockManager::close);
        cluster.close();
    }

    @Test
    void killingAndRestartingTheLeaderNeverGrantsTheLockTwice() throws Exception {
        String basePath = ZooKeeperTesting.randomBasePath();
        for (int i = 0; i < WORKERS; i++) {
            // sessions long enough to outlive the failover: clients move to another server, sessions stay
            LockManager locks = LockManager.builder(ZooKeeperLockProvider.builder(
                            ZooKeeperTesting.client(cluster.getConnectString(), 20_000)).basePath(basePath).closeClient(true).build())
                    .transactions(TransactionSupport.none()).build();
            managers.add(locks);
            workers.execute(() -> contend(locks));
        }

        awaitMoreGrants(GRANTS_PER_PHASE);
        InstanceSpec leader = leader();
        assertThat(cluster.killServer(leader)).isTrue();
        awaitMoreGrants(GRANTS_PER_PHASE);
        assertThat(cluster.restartServer(leader)).isTrue();
        awaitMoreGrants(GRANTS_PER_PHASE);
        running.set(false);
        workers.shutdown();
        assertThat(workers.awaitTermination(60, TimeUnit.SECONDS)).isTrue();

        assertThat(violations).isEmpty();
        synchronized (tokens) {
            assertThat(tokens).hasSizeGreaterThanOrEqualTo(3 * GRANTS_PER_PHASE).isSorted().doesNotHaveDuplicates();
            assertThat(tokens.get(tokens.size() - 1) >>> 32).as("the new leader's epoch (high half of every zxid)")
                    .isGreaterThan(tokens.get(0) >>> 32);
        }
    }

    @Test
    void holderWhoseNodeWasDeletedWhileItWasDisconnectedIsNotRestored() throws Exception {
        String basePath = ZooKeeperTesting.randomBasePath();
        List<InstanceSpec> servers = new ArrayList<>(cluster.getInstances());
        InstanceSpec holderServer = servers.get(0);
        // the holder can reach one server only, so it stays disconnected while that one is down
        LockManager holder = LockManager.builder(ZooKeeperLockProvider.builder(
                        ZooKeeperTesting.pinnedClient(holderServer.getConnectString(), 20_000)).basePath(basePath).closeClient(true).build())
                .transactions(TransactionSupport.none()).build();
        managers.add(holder);
        CuratorFramework observer = ZooKeeperTesting.client(servers.get(1).getConnectString() + "," + servers.get(2).getConnectString());
        try {
            LockHandle held = holder.acquire("deleted-meanwhile");
            CountDownLatch lost = new CountDownLatch(1);
            held.onLost(lost::countDown);
            String parent = ZKPaths.makePath(basePath, ZNodeNames.encode("deleted-meanwhile"));

            assertThat(cluster.killServer(holderServer)).isTrue();
            await().atMost(PHASE).until(() -> !held.isValid());
            observer.delete().forPath(ZKPaths.makePath(parent, observer.getChildren().forPath(parent).get(0)));
            assertThat(cluster.restartServer(holderServer)).isTrue();

            assertThat(lost.await(PHASE.toSeconds(), TimeUnit.SECONDS)).as("told once it is back").isTrue();
            assertThat(held.isValid()).isFalse();
        } finally {
            observer.close();
        }
    }

    /**
     * The holder reaches only the leader, which is killed. The holder is suspended at once; the new leader expires
     * its short session (the waiter's is long) and deletes its node. Only then is the waiter granted, with a
     * higher token, never while the holder could still take its lock for valid; the holder is told it lost it.
     */
    @Test
    void aHolderWhoseSessionExpiresAcrossALeaderChangeIsToldAndItsLockPassesOn() throws Exception {
        String basePath = ZooKeeperTesting.randomBasePath();
        InstanceSpec leader = leader();
        String others = cluster.getInstances().stream().filter(spec -> !spec.equals(leader))
                .map(InstanceSpec::getConnectString).collect(Collectors.joining(","));
        LockManager holder = manager(ZooKeeperTesting.pinnedClient(leader.getConnectString(), ZooKeeperTesting.SESSION_TIMEOUT_MS),
                basePath);
        LockManager waiter = manager(ZooKeeperTesting.client(others, 20_000), basePath);
        LockHandle held = holder.acquire("expiring");
        CountDownLatch lost = new CountDownLatch(1);
        held.onLost(lost::countDown);

        assertThat(cluster.killServer(leader)).isTrue();
        long deadline = System.nanoTime() + PHASE.toNanos();
        LockHandle next = null;
        while (next == null) {
            try {
                next = waiter.acquire("expiring", LockOptions.defaults().withWait(PHASE));
            } catch (LockBackendException caughtInTheElection) {
                assertThat(deadline - System.nanoTime()).as("time left to get the lock after the failover").isPositive();
            }
        }
        assertThat(held.isValid()).as("the old holder, when the waiter is granted").isFalse();
        assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        assertThat(lost.await(PHASE.toSeconds(), TimeUnit.SECONDS)).as("the old holder told it lost the lock").isTrue();
        next.release();
    }

    private LockManager manager(CuratorFramework client, String basePath) {
        LockManager locks = LockManager.builder(ZooKeeperLockProvider.builder(client).basePath(basePath).closeClient(true).build())
                .transactions(TransactionSupport.none()).build();
        managers.add(locks);
        return locks;
    }

    private void contend(LockManager locks) {
        while (running.get()) {
            try (LockHandle handle = locks.acquire("contended", LockOptions.defaults().withWait(Duration.ofSeconds(30)))) {
                if (!handle.isValid()) {
                    continue; // suspended during failover: a careful holder does not start protected work
                }
                int now = inside.incrementAndGet();
                if (now != 1) {
                    violations.add(now + " holders inside at token " + handle.fencingToken());
                }
                synchronized (tokens) {
                    tokens.add(handle.fencingToken());
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2)); // the protected work
                inside.decrementAndGet();
                grants.incrementAndGet();
            } catch (LockException e) {
                backendErrors.incrementAndGet(); // a request caught in the failover: try again
            }
        }
    }

    private void awaitMoreGrants(int more) {
        int target = grants.get() + more;
        await().atMost(PHASE).until(() -> grants.get() >= target);
    }

    private InstanceSpec leader() {
        return await().atMost(PHASE).until(() -> {
            for (InstanceSpec spec : cluster.getInstances()) {
                try {
                    if (ZooKeeperTesting.fourLetterWord(spec.getHostname(), spec.getPort(), "srvr").contains("Mode: leader")) {
                        return spec;
                    }
                } catch (Exception notUp) {
                    // ask the next one
                }
            }
            return null;
        }, spec -> spec != null);
    }
}
