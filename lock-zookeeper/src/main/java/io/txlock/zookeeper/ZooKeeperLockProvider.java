package io.txlock.zookeeper;

import io.txlock.LockBackendException;
import io.txlock.LockInfo;
import io.txlock.LockNotHeldException;
import io.txlock.spi.Attempt;
import io.txlock.spi.Cancellation;
import io.txlock.spi.Grant;
import io.txlock.spi.LockProvider;
import io.txlock.spi.LockRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.common.PathUtils;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locks on ZooKeeper through Curator: a fair queue of ephemeral sequential nodes under one parent per lock name.
 *
 * <pre>{@code
 * CuratorFramework curator = CuratorFrameworkFactory.newClient("zk1:2181,zk2:2181,zk3:2181",
 *         new ExponentialBackoffRetry(1000, 3));
 * curator.start();
 * LockManager locks = LockManager.builder(ZooKeeperLockProvider.builder(curator).basePath("/txlock").build()).build();
 * }</pre>
 *
 * <ul>
 *   <li><b>Fair:</b> contenders are granted in the order their nodes were created; each waiter watches only the
 *       node just before its own, so a release wakes one process, and nobody polls.</li>
 *   <li><b>Fenced:</b> the fencing token is the holder node's {@code czxid}, the id of the ZooKeeper transaction
 *       that created it. Zxids only grow, across leader elections and across the deletion of empty parents, and a
 *       holder's node is always created after its predecessor's, so tokens strictly increase per name.</li>
 *   <li><b>Session-bound:</b> a grant lives as long as the ZooKeeper session ({@link Grant#leased()} is false):
 *       a dead holder's lock is freed when its session expires. While the connection is suspended the holder's
 *       handle reports {@code isValid() == false}; when the session is lost, or the node deleted, the lock is
 *       lost and the holder is told. {@code isValid()} is also false once the negotiated session timeout (less a
 *       tenth) has passed since the last request of the session that ZooKeeper answered (the provider sends a
 *       {@code sync} every quarter of the timeout while it holds locks): a holder that was paused past its session
 *       timeout does not trust its lock before Curator has told it anything.</li>
 *   <li><b>Crash-safe creates:</b> nodes are created in Curator's protected mode, so a create whose reply was
 *       lost is found again or deleted, never left behind as an orphan that would block the queue.</li>
 * </ul>
 *
 * <p>Thread safe. Grants are not tied to threads: the core decides who owns them. Backend failures surface as
 * {@link LockBackendException} after the client's own connection timeout and retry policy ran out.
 */
public final class ZooKeeperLockProvider implements LockProvider {

    private static final Logger log = LoggerFactory.getLogger(ZooKeeperLockProvider.class);
    /** Waits longer than this (about 73 years) are waits until granted; it keeps deadline arithmetic exact. */
    private static final long FOREVER_NANOS = Long.MAX_VALUE / 4;
    /** Creates of a waiter's node tried when ZooKeeper keeps deleting its empty parent container in between. */
    private static final int PARENT_REAPED_RETRIES = 5;

    private final CuratorFramework client;
    private final String basePath;
    private final boolean closeClient;
    private final ScheduledExecutorService timer;
    private final SessionGuard sessions;
    private final SessionClock clock;
    private final AtomicBoolean closed = new AtomicBoolean();

    private ZooKeeperLockProvider(Builder builder) {
        this.client = builder.client;
        this.basePath = builder.basePath;
        this.closeClient = builder.closeClient;
        this.timer = newTimer();
        this.sessions = new SessionGuard(client, timer, builder.watchAfter);
        this.clock = new SessionClock(client, sessions::following, timer);
        client.getConnectionStateListenable().addListener(sessions);
    }

    /**
     * @param client a started Curator client; its connection timeout and retry policy decide how soon an
     *     unreachable ensemble is reported as {@link LockBackendException}
     * @return a builder for a provider on that client
     * @throws IllegalArgumentException if the client is null, not started yet, or closed
     */
    public static Builder builder(CuratorFramework client) {
        return new Builder(client);
    }

    @Override
    public String describe() {
        String namespace = client.getNamespace();
        return "ZooKeeper " + client.getZookeeperClient().getCurrentConnectionString()
                + (namespace == null || namespace.isEmpty() ? "" : " namespace /" + namespace) + " under " + basePath;
    }

    @Override
    public boolean blocksWhileWaiting() {
        return true;
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        ensureOpen();
        try {
            return enqueueAndWait(request);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Attempt.held();
        } catch (LockBackendException e) {
            if (Thread.currentThread().isInterrupted()) {
                return Attempt.held();
            }
            throw e;
        }
    }

    /**
     * Creates this attempt's node, then waits for its turn: each time the node just before it goes away, the
     * queue is read again (a predecessor may leave without the lock having been granted to it).
     */
    private Attempt enqueueAndWait(LockRequest request) throws InterruptedException {
        String parent = parentPath(request.name());
        long deadline = System.nanoTime() + nanos(request.maxBlock());
        long sessionMark = sessions.sessionMark();
        Stat created = new Stat();
        String path = create(parent, request, created);
        String node = ZKPaths.getNodeFromPath(path);
        boolean granted = false;
        WatcherRemoveCuratorFramework watching = client.newWatcherRemoveCuratorFramework();
        try {
            while (true) {
                long listed = System.nanoTime();
                List<String> queue = LockNodes.queue(children(parent));
                int place = queue.indexOf(node);
                if (place < 0) {
                    throw new LockBackendException(describe() + ": the node " + path + " of a waiter for '" + request.name()
                            + "' vanished (ZooKeeper session expired?)", null);
                }
                if (place == 0) {
                    clock.heardFromCurrentSession(listed);
                    Stat stat = nodeStat(path, created);
                    ZooKeeperGrant grant = new ZooKeeperGrant(request.name(), path, stat.getCzxid(), stat.getEphemeralOwner(),
                            request.listener(), clock);
                    granted = true;
                    sessions.track(grant, sessionMark);
                    return Attempt.granted(grant);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || request.cancellation().isCancelled()) {
                    return Attempt.held();
                }
                awaitDeletion(watching, ZKPaths.makePath(parent, queue.get(place - 1)), left, request.cancellation());
            }
        } finally {
            watching.removeWatchers();
            if (!granted) {
                withdraw(path);
            }
        }
    }

    /**
     * Called only when the owner extends a lock whose renewal it turned off: a ZooKeeper grant lives with its
     * session, so there is nothing to extend, only to check that its node is still there.
     */
    @Override
    public void renew(Grant grant, Duration lease) {
        ZooKeeperGrant g = (ZooKeeperGrant) grant;
        Stat stat = call("check the node of " + g, () -> client.checkExists().forPath(g.path()));
        if (stat == null || stat.getCzxid() != g.fencingToken()) {
            throw new LockNotHeldException("ZooKeeper lock " + g + " is gone (session expired or node deleted)");
        }
    }

    /**
     * Deletes the node even if the calling thread is interrupted; an interrupted caller stays interrupted. A session
     * that expired took the node with it: {@link LockNotHeldException}.
     */
    @Override
    public void release(Grant grant) {
        ZooKeeperGrant g = (ZooKeeperGrant) grant;
        sessions.untrack(g);
        boolean interrupted = Thread.interrupted();
        try {
            client.delete().guaranteed().forPath(g.path());
        } catch (KeeperException.NoNodeException e) {
            throw new LockNotHeldException("ZooKeeper lock " + g + " was no longer held: its node is gone"
                    + " (session expired or node deleted)");
        } catch (KeeperException.SessionExpiredException e) {
            throw new LockNotHeldException("ZooKeeper lock " + g + " was no longer held: its session expired,"
                    + " and ZooKeeper deleted its node with it");
        } catch (Exception e) {
            throw backendFailure("release " + g + " (Curator keeps deleting it in the background)", e);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        ensureOpen();
        String parent = parentPath(name);
        try {
            while (true) {
                List<String> queue;
                try {
                    queue = LockNodes.queue(client.getChildren().forPath(parent));
                } catch (KeeperException.NoNodeException neverLocked) {
                    return Optional.empty();
                }
                if (queue.isEmpty()) {
                    return Optional.empty();
                }
                Stat stat = new Stat();
                byte[] data;
                try {
                    data = client.getData().storingStatIn(stat).forPath(ZKPaths.makePath(parent, queue.get(0)));
                } catch (KeeperException.NoNodeException releasedMeanwhile) {
                    continue;
                }
                LockNodes.Owner owner = LockNodes.owner(data);
                return Optional.of(new LockInfo(name, owner.host(), owner.id(), stat.getCzxid(),
                        Instant.ofEpochMilli(stat.getCtime()), null, 1));
            }
        } catch (Exception e) {
            throw backendFailure("inspect '" + name + "'", e);
        }
    }

    /**
     * @return listing of the lock nodes under the base path (each name read as {@link #inspect} reads it), and forced
     *     release that deletes the holder's node if its {@code czxid} is the given token: a node's path is never
     *     reused, so it deletes only that grant. The holder's watch on its node reports the loss (a grant's node is
     *     watched once the grant is 50 ms old, so a younger grant learns of it when it is that old).
     */
    @Override
    public Optional<io.txlock.spi.LockAdministration> administration() {
        return Optional.of(new io.txlock.spi.LockAdministration() {
            @Override
            public List<LockInfo> list(String prefix, int limit) {
                List<String> children;
                try {
                    children = client.getChildren().forPath(basePath);
                } catch (KeeperException.NoNodeException neverLocked) {
                    return List.of();
                } catch (Exception e) {
                    throw backendFailure("list the locks under " + basePath, e);
                }
                java.util.TreeSet<String> names = new java.util.TreeSet<>();
                for (String child : children) {
                    String name;
                    try {
                        name = ZNodeNames.decode(child);
                    } catch (IllegalArgumentException notALock) {
                        continue;
                    }
                    if (name.startsWith(prefix)) {
                        names.add(name);
                    }
                }
                return io.txlock.spi.LockAdministration.held(names, limit, ZooKeeperLockProvider.this::inspect);
            }

            @Override
            public boolean forceRelease(String name, long fencingToken) {
                String parent = parentPath(name);
                try {
                    List<String> queue = LockNodes.queue(client.getChildren().forPath(parent));
                    if (queue.isEmpty()) {
                        return false;
                    }
                    String holder = ZKPaths.makePath(parent, queue.get(0));
                    Stat stat = client.checkExists().forPath(holder);
                    if (stat == null || stat.getCzxid() != fencingToken) {
                        return false;
                    }
                    client.delete().forPath(holder);
                    return true;
                } catch (KeeperException.NoNodeException gone) {
                    return false;
                } catch (Exception e) {
                    throw backendFailure("force-release '" + name + "'", e);
                }
            }
        });
    }

    /**
     * Stops following connection events. Grants still held are reported lost and their nodes deleted in the
     * background; the Curator client is closed too if the builder was told to.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        client.getConnectionStateListenable().removeListener(sessions);
        timer.shutdownNow();
        for (ZooKeeperGrant g : sessions.untrackAll()) {
            g.listener().lost("the ZooKeeper lock provider was closed");
            try {
                client.delete().guaranteed().inBackground().forPath(g.path());
            } catch (Exception e) {
                log.debug("could not delete {} while closing: {}", g, e.toString());
            }
        }
        if (closeClient) {
            client.close();
        }
    }

    @Override
    public String toString() {
        return "ZooKeeperLockProvider[" + describe() + "]";
    }

    // ---- steps of an attempt

    /**
     * Creates the waiter's node. ZooKeeper may delete the empty parent container between Curator's check that it
     * exists and the create, which then fails with NoNode although nothing is wrong: create the parent again and
     * retry, a few times, since a node that was refused for want of its parent was never created.
     */
    private String create(String parent, LockRequest request, Stat stat) {
        String what = "enqueue for '" + request.name() + "'";
        for (int attempt = 1; ; attempt++) {
            try {
                return client.create()
                        .storingStatIn(stat)
                        .creatingParentContainersIfNeeded()
                        .withProtection()
                        .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                        .forPath(ZKPaths.makePath(parent, LockNodes.NODE_NAME), LockNodes.ownerData(request.owner()));
            } catch (KeeperException.NoNodeException parentReaped) {
                if (attempt == PARENT_REAPED_RETRIES) {
                    throw backendFailure(what + " (its parent " + parent + " vanished " + attempt + " times)", parentReaped);
                }
            } catch (Exception e) {
                throw backendFailure(what, e);
            }
        }
    }

    /** Curator fills the stat only if the first create succeeded; a create found again after a lost reply has none. */
    private Stat nodeStat(String path, Stat created) {
        if (created.getCzxid() != 0) {
            return created;
        }
        Stat stat = call("read the node " + path, () -> client.checkExists().forPath(path));
        if (stat == null) {
            throw new LockBackendException(describe() + ": the new lock node " + path + " vanished (ZooKeeper session expired?)", null);
        }
        return stat;
    }

    private List<String> children(String parent) {
        return call("list " + parent, () -> client.getChildren().forPath(parent));
    }

    /** Waits until the predecessor is gone, a connection event happens, the core cancels, or {@code nanos} pass. */
    private static void awaitDeletion(WatcherRemoveCuratorFramework watching, String predecessor, long nanos,
            Cancellation cancellation) throws InterruptedException {
        CountDownLatch changed = new CountDownLatch(1);
        try {
            watching.getData().usingWatcher((Watcher) event -> changed.countDown()).forPath(predecessor);
        } catch (KeeperException.NoNodeException gone) {
            return;
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new LockBackendException("ZooKeeper: could not watch " + predecessor + ": " + e, e);
        }
        Cancellation.Registration cancel = cancellation.onCancel(changed::countDown);
        try {
            changed.await(nanos, TimeUnit.NANOSECONDS);
        } finally {
            cancel.close();
        }
    }

    /** Deletes the node of an attempt that was not granted; an interrupted caller stays interrupted. */
    private void withdraw(String path) {
        boolean interrupted = Thread.interrupted();
        try {
            client.delete().guaranteed().forPath(path);
        } catch (KeeperException.NoNodeException gone) {
            // the session that owned it ended
        } catch (Exception e) {
            log.warn("could not withdraw lock node {} now, Curator keeps deleting it in the background: {}", path, e.toString());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // ---- plumbing

    private String parentPath(String name) {
        return ZKPaths.makePath(basePath, ZNodeNames.encode(name));
    }

    private interface ZooKeeperCall<T> {
        T call() throws Exception;
    }

    private <T> T call(String what, ZooKeeperCall<T> call) {
        try {
            return call.call();
        } catch (Exception e) {
            throw backendFailure(what, e);
        }
    }

    /** An interrupted caller stays interrupted. */
    private LockBackendException backendFailure(String what, Exception e) {
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        return new LockBackendException(describe() + ": could not " + what + ": " + e, e);
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException(describe() + ": the lock provider is closed");
        }
    }

    /** The provider's one thread: the session clock's probes and the watches of grants held a while. */
    private static ScheduledExecutorService newTimer() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "txlock-zookeeper-timer");
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

    private static long nanos(Duration d) {
        return d.compareTo(Duration.ofNanos(FOREVER_NANOS)) >= 0 ? FOREVER_NANOS : Math.max(0, d.toNanos());
    }

    /** Configures a {@link ZooKeeperLockProvider}. */
    public static final class Builder {
        private final CuratorFramework client;
        private String basePath = "/txlock";
        private boolean closeClient;
        private Duration watchAfter = SessionGuard.WATCH_AFTER;

        private Builder(CuratorFramework client) {
            if (client == null) {
                throw new IllegalArgumentException("client must not be null: pass a started CuratorFramework");
            }
            if (client.getState() == CuratorFrameworkState.LATENT) {
                throw new IllegalArgumentException("the CuratorFramework is not started: call client.start() first");
            }
            if (client.getState() == CuratorFrameworkState.STOPPED) {
                throw new IllegalArgumentException("the CuratorFramework is closed: pass an open client");
            }
            this.client = client;
        }

        /**
         * @param basePath the node under which every lock gets its parent node, e.g. {@code /txlock} (the default);
         *     an absolute ZooKeeper path, not the root, not ending in {@code /}, not under {@code /zookeeper}.
         *     Missing nodes are created as containers, which ZooKeeper deletes again when they are empty
         * @return this builder
         * @throws IllegalArgumentException if the path is not valid
         */
        public Builder basePath(String basePath) {
            if (basePath == null || basePath.isBlank()) {
                throw new IllegalArgumentException("basePath must be an absolute ZooKeeper path such as /txlock, was '" + basePath + "'");
            }
            try {
                PathUtils.validatePath(basePath);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("basePath '" + basePath + "' is not a valid ZooKeeper path (" + e.getMessage()
                        + "): use an absolute path such as /txlock", e);
            }
            if (basePath.equals("/") || basePath.equals("/zookeeper") || basePath.startsWith("/zookeeper/")) {
                throw new IllegalArgumentException("basePath must be a node of its own such as /txlock, not '" + basePath
                        + "' (the root and /zookeeper are ZooKeeper's)");
            }
            this.basePath = basePath;
            return this;
        }

        /**
         * @param closeClient {@code true} to close the Curator client when the provider closes (when the provider
         *     is its only user); {@code false} (the default) leaves it to its owner
         * @return this builder
         */
        public Builder closeClient(boolean closeClient) {
            this.closeClient = closeClient;
            return this;
        }

        /** Tests: how old a grant is when its node gets its watch ({@link SessionGuard#WATCH_AFTER} by default). */
        Builder watchAfter(Duration watchAfter) {
            this.watchAfter = watchAfter;
            return this;
        }

        /** @return a new provider; it starts following the client's connection state at once */
        public ZooKeeperLockProvider build() {
            return new ZooKeeperLockProvider(this);
        }
    }
}
