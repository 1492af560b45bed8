package io.txlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.txlock.LockBackendException;
import io.txlock.LockHandle;
import io.txlock.LockInfo;
import io.txlock.LockInterruptedException;
import io.txlock.LockManager;
import io.txlock.LockNotHeldException;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.spi.LockProvider;
import io.txlock.spi.TransactionSupport;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.KillSession;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The provider against one real standalone server; every manager has its own client, so its own session. */
class ZooKeeperLockProviderTest {

    private static final Duration AWAIT = Duration.ofSeconds(20);

    private static TestingServer server;
    /** The test's own view of the server, for reading and deleting nodes behind the providers' backs. */
    private static CuratorFramework observer;

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private String basePath;

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

    @BeforeEach
    void newNamespace() {
        basePath = ZooKeeperTesting.randomBasePath();
    }

    @AfterEach
    void closeManagers() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    /** A manager with its own Curator client: as good as another process, as far as ZooKeeper can tell. */
    private Contender contender() throws Exception {
        CuratorFramework client = ZooKeeperTesting.client(server.getConnectString());
        LockProvider provider = ZooKeeperLockProvider.builder(client).basePath(basePath).closeClient(true).build();
        LockManager manager = LockManager.builder(provider).transactions(TransactionSupport.none()).build();
        toClose.add(manager);
        return new Contender(client, manager);
    }

    private record Contender(CuratorFramework client, LockManager locks) {
        long sessionId() throws Exception {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        }
    }

    private String parent(String name) {
        return ZKPaths.makePath(basePath, ZNodeNames.encode(name));
    }

    private List<String> queue(String name) throws Exception {
        try {
            return LockNodes.queue(observer.getChildren().forPath(parent(name)));
        } catch (KeeperException.NoNodeException emptyParentReaped) {
            return List.of();
        }
    }

    private void awaitQueueLength(String name, int length) {
        await().atMost(AWAIT).until(() -> queue(name).size() == length);
    }

    @Test
    void grantIsTheFirstNodeInTheQueueAndItsTokenIsTheNodesCzxid() throws Exception {
        Contender a = contender();
        Instant before = Instant.now().minusSeconds(1);

        try (LockHandle handle = a.locks().acquire("order:42")) {
            List<String> queue = queue("order:42");
            assertThat(queue).hasSize(1);
            Stat stat = observer.checkExists().forPath(ZKPaths.makePath(parent("order:42"), queue.get(0)));
            assertThat(handle.fencingToken()).isEqualTo(stat.getCzxid());
            assertThat(stat.getEphemeralOwner()).isEqualTo(a.sessionId());
            assertThat(handle.expiresAt()).as("lives with the session, not a lease").isNull();
            assertThat(handle.isValid()).isTrue();

            LockInfo info = a.locks().inspect("order:42").orElseThrow();
            assertThat(info.name()).isEqualTo("order:42");
            assertThat(info.fencingToken()).isEqualTo(handle.fencingToken());
            assertThat(info.ownerId()).startsWith(a.locks().instanceId() + "/");
            assertThat(info.ownerHost()).isNotBlank();
            assertThat(info.since()).isAfter(before).isBefore(Instant.now().plusSeconds(1));
            assertThat(info.until()).isNull();
        }

        assertThat(queue("order:42")).isEmpty();
        assertThat(a.locks().inspect("order:42")).isEmpty();
        assertThat(a.locks().inspect("never-locked")).isEmpty();
    }

    @Test
    void tokensKeepIncreasingWhenZooKeeperDeletedTheEmptyParentAndSequencesRestarted() throws Exception {
        Contender a = contender();
        Contender b = contender();
        List<Long> tokens = new ArrayList<>();
        for (Contender c : List.of(a, b, a)) {
            try (LockHandle handle = c.locks().acquire("reaped")) {
                tokens.add(handle.fencingToken());
                assertThat(queue("reaped")).singleElement().asString()
                        .as("a fresh parent numbers its children from zero again").endsWith("lock-0000000000");
            }
            // the server's container manager deletes the empty parent (and the empty base path)
            await().atMost(AWAIT).until(() -> observer.checkExists().forPath(parent("reaped")) == null);
        }
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void waitersAreGrantedInArrivalOrderAndEachWatchesOnlyItsPredecessor() throws Exception {
        Contender holder = contender();
        LockHandle held = holder.locks().acquire("fifo");
        List<Contender> waiters = List.of(contender(), contender(), contender());
        List<String> grantedTo = new CopyOnWriteArrayList<>();
        List<Long> tokens = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (int i = 0; i < waiters.size(); i++) {
            String who = "waiter" + i;
            Contender w = waiters.get(i);
            done.add(CompletableFuture.runAsync(() -> {
                try (LockHandle h = w.locks().acquire("fifo", LockOptions.defaults().withWait(AWAIT))) {
                    grantedTo.add(who);
                    tokens.add(h.fencingToken());
                }
            }));
            awaitQueueLength("fifo", i + 2);
        }

        List<String> queue = queue("fifo");
        Map<String, List<String>> watches = ZooKeeperTesting.watchesBySession("127.0.0.1", server.getPort());
        assertThat(lockWatches(watches, holder)).as("the holder watches its own node")
                .containsExactly(ZKPaths.makePath(parent("fifo"), queue.get(0)));
        for (int i = 0; i < waiters.size(); i++) {
            assertThat(lockWatches(watches, waiters.get(i))).as("waiter %d watches its predecessor only", i)
                    .containsExactly(ZKPaths.makePath(parent("fifo"), queue.get(i)));
        }

        held.release();
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(AWAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(grantedTo).containsExactly("waiter0", "waiter1", "waiter2");
        assertThat(tokens).isSorted().doesNotHaveDuplicates().allSatisfy(t -> assertThat(t).isGreaterThan(held.fencingToken()));
        assertThat(queue("fifo")).isEmpty();
    }

    /** @return what the contender's session watches among the locks (Curator itself watches /zookeeper/config) */
    private List<String> lockWatches(Map<String, List<String>> watchesBySession, Contender c) throws Exception {
        return watchesBySession.getOrDefault("0x" + Long.toHexString(c.sessionId()), List.of()).stream()
                .filter(path -> path.startsWith(basePath + "/"))
                .toList();
    }

    @Test
    void zeroWaitAnswersAtOnceAndTimedWaitGivesUpAtItsDeadline_neitherLeavesANodeBehind() throws Exception {
        Contender holder = contender();
        Contender other = contender();
        try (LockHandle held = holder.locks().acquire("busy")) {
            assertThat(other.locks().tryAcquire("busy")).isEmpty();
            assertThat(queue("busy")).hasSize(1);

            long start = System.nanoTime();
            Optional<LockHandle> late = other.locks().tryAcquire("busy", Duration.ofMillis(700));
            long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(late).isEmpty();
            assertThat(waitedMs).isBetween(700L, 700L + 3000);
            assertThat(queue("busy")).hasSize(1);
            assertThat(held.isValid()).isTrue();
        }
        assertThat(other.locks().tryAcquire("busy")).isPresent().get().satisfies(LockHandle::release);
    }

    @Test
    void ownershipIsNotTiedToAThread() throws Exception {
        Contender a = contender();
        Contender b = contender();

        LockHandle async = a.locks().acquireAsync("async", LockOptions.defaults().withScope(LockScope.LEASE))
                .toCompletableFuture().get(AWAIT.toSeconds(), TimeUnit.SECONDS);
        CompletableFuture.runAsync(async::release).get(AWAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(b.locks().tryAcquire("async")).isPresent().get().satisfies(LockHandle::release);

        AtomicReference<LockHandle> taken = new AtomicReference<>();
        Thread taker = new Thread(() -> taken.set(a.locks().acquire("handed-over")));
        taker.start();
        taker.join(AWAIT.toMillis());
        taken.get().release();
        assertThat(b.locks().tryAcquire("handed-over")).isPresent().get().satisfies(LockHandle::release);
    }

    @Test
    void killedSessionPassesTheLockToTheNextWaiterWithAHigherTokenAndTellsTheOldHolder() throws Exception {
        Contender old = contender();
        Contender next = contender();
        LockHandle held = old.locks().acquire("session");
        CountDownLatch told = new CountDownLatch(1);
        held.onLost(told::countDown);
        CompletableFuture<LockHandle> waiting = next.locks().acquireAsync("session", LockOptions.defaults().withWait(AWAIT))
                .toCompletableFuture();
        awaitQueueLength("session", 2);

        KillSession.kill(old.client().getZookeeperClient().getZooKeeper());

        LockHandle taken = waiting.get(AWAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
        assertThat(told.await(AWAIT.toSeconds(), TimeUnit.SECONDS)).as("old holder told").isTrue();
        assertThat(held.isValid()).isFalse();
        assertThatThrownBy(held::release).isInstanceOf(LockNotHeldException.class).hasMessageContaining("lost");
        assertThat(next.locks().inspect("session")).get().extracting(LockInfo::fencingToken).isEqualTo(taken.fencingToken());
        taken.release();

        // the old holder's client got a new session and locks again
        try (LockHandle again = old.locks().acquire("session")) {
            assertThat(again.fencingToken()).isGreaterThan(taken.fencingToken());
        }
    }

    @Test
    void leaseWithoutRenewalIsAHardLimitEvenThoughTheNodeLivesWithTheSession() throws Exception {
        Contender a = contender();
        Contender b = contender();
        Duration lease = Duration.ofMillis(500);
        LockHandle limited = a.locks().acquire("limited",
                LockOptions.defaults().withScope(LockScope.LEASE).withLease(lease).withAutoRenew(false));
        assertThat(limited.expiresAt()).isNotNull();
        CountDownLatch told = new CountDownLatch(1);
        limited.onLost(told::countDown);

        assertThat(told.await(AWAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(limited.isValid()).isFalse();
        try (LockHandle taken = b.locks().acquire("limited")) {
            assertThat(taken.fencingToken()).isGreaterThan(limited.fencingToken());
            assertThat(queue("limited")).hasSize(1);
        }
        assertThatThrownBy(limited::release).isInstanceOf(LockNotHeldException.class);
    }

    @Test
    void holderWhoseNodeIsDeletedLosesTheLock() throws Exception {
        Contender a = contender();
        Contender b = contender();
        LockHandle held = a.locks().acquire("deleted");
        CountDownLatch told = new CountDownLatch(1);
        held.onLost(told::countDown);

        observer.delete().forPath(ZKPaths.makePath(parent("deleted"), queue("deleted").get(0)));

        assertThat(told.await(AWAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(held.isValid()).isFalse();
        try (LockHandle taken = b.locks().acquire("deleted")) {
            assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
        }
        assertThatThrownBy(held::release).isInstanceOf(LockNotHeldException.class);
    }

    @Test
    void interruptedWaiterWithdrawsItsNode() throws Exception {
        Contender holder = contender();
        Contender waiter = contender();
        LockHandle held = holder.locks().acquire("interrupt");
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread waiting = new Thread(() -> {
            try {
                waiter.locks().acquire("interrupt", LockOptions.defaults().withWait(AWAIT));
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        waiting.start();
        awaitQueueLength("interrupt", 2);

        waiting.interrupt();
        waiting.join(AWAIT.toMillis());

        assertThat(failure.get()).isInstanceOf(LockInterruptedException.class);
        assertThat(queue("interrupt")).hasSize(1);
        assertThat(held.isValid()).isTrue();
        held.release();
    }

    @Test
    void uninterruptibleLockKeepsWaitingThroughAnInterruptAndAnInterruptedOwnerCanStillRelease() throws Exception {
        Contender holder = contender();
        Contender waiter = contender();
        LockHandle held = holder.locks().acquire("lock-view");
        Lock view = waiter.locks().asLock("lock-view");
        CompletableFuture<Boolean> interruptedAfterLock = new CompletableFuture<>();
        Thread waiting = new Thread(() -> {
            try {
                view.lock();
                boolean interrupted = Thread.currentThread().isInterrupted();
                view.unlock();
                interruptedAfterLock.complete(interrupted && Thread.currentThread().isInterrupted());
            } catch (Throwable t) {
                interruptedAfterLock.completeExceptionally(t);
            }
        });
        waiting.start();
        awaitQueueLength("lock-view", 2);
        waiting.interrupt();
        await().atMost(AWAIT).until(() -> queue("lock-view").size() == 2 && waiting.isAlive());

        held.release();
        assertThat(interruptedAfterLock.get(AWAIT.toSeconds(), TimeUnit.SECONDS))
                .as("granted and released with the interrupt flag set, which stays set").isTrue();
        assertThat(queue("lock-view")).isEmpty();
    }

    @Test
    void unreachableEnsembleIsABackendFailureNotARefusal() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        CuratorFramework client = CuratorFrameworkFactory.builder().connectString("127.0.0.1:" + closedPort)
                .sessionTimeoutMs(2000).connectionTimeoutMs(500).retryPolicy(new RetryNTimes(1, 100)).build();
        client.start();
        LockProvider provider = ZooKeeperLockProvider.builder(client).basePath(basePath).closeClient(true).build();
        try (LockManager locks = LockManager.builder(provider).transactions(TransactionSupport.none()).build()) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> locks.acquire("x")).isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("127.0.0.1:" + closedPort);
            assertThatThrownBy(() -> locks.tryAcquire("x")).isInstanceOf(LockBackendException.class);
            assertThatThrownBy(() -> locks.inspect("x")).isInstanceOf(LockBackendException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
        }
    }

    @Test
    void builderExplainsBadInput() throws Exception {
        assertThatThrownBy(() -> ZooKeeperLockProvider.builder(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("CuratorFramework");
        CuratorFramework unstarted = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryNTimes(0, 0));
        assertThatThrownBy(() -> ZooKeeperLockProvider.builder(unstarted)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("start()");
        unstarted.start();
        unstarted.close();
        assertThatThrownBy(() -> ZooKeeperLockProvider.builder(unstarted)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("closed");

        ZooKeeperLockProvider.Builder builder = ZooKeeperLockProvider.builder(observer);
        for (String bad : new String[] {null, "", " ", "txlock", "/txlock/", "/a//b", "/", "/zookeeper", "/zookeeper/x", "/a\u0000b"}) {
            assertThatThrownBy(() -> builder.basePath(bad)).as("basePath %s", bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/txlock");
        }
        assertThat(builder.basePath("/apps/billing/locks").build().describe())
                .contains(server.getConnectString()).contains("/apps/billing/locks");
    }
}
