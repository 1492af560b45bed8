package io.txlock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every live grant's holder informed, so that none believes it holds a lock whose node is gone:
 * SUSPENDED (or READ_ONLY) suspends every grant; RECONNECTED restores a grant only after its node was read back
 * unchanged; LOST (session expired, or Curator gave up after the session timeout) loses them all; a watch on
 * each holder's own node loses the grant when the node is deleted by anyone else (an operator's forced release).
 *
 * <p>That watch is set once a grant is {@link #WATCH_AFTER} old: most grants are released sooner, and a grant
 * released before it costs ZooKeeper no read and no notification, as in Curator's own lock recipe. A node deleted by
 * someone else is noticed at most that much later than a watch set at once would notice it; its holder learns of it
 * asynchronously either way, which is why fencing, not the holder's belief, protects the writes.
 */
final class SessionGuard implements ConnectionStateListener {

    private static final Logger log = LoggerFactory.getLogger(SessionGuard.class);
    /** How old a grant is when its node gets its watch, unless the provider's builder said otherwise (tests). */
    static final Duration WATCH_AFTER = Duration.ofMillis(50);

    /** A grant not watched yet, with the epoch it was tracked in and when. */
    private record Unwatched(ZooKeeperGrant grant, long checkEpoch, long trackedNanos) {
    }

    private final CuratorFramework client;
    private final ScheduledExecutorService timer;
    private final long watchAfterNanos;
    private final Map<String, ZooKeeperGrant> grants = new ConcurrentHashMap<>();
    /** Grants in the order they were tracked, until they are watched or found released. */
    private final Queue<Unwatched> unwatched = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean watchingScheduled = new AtomicBoolean();
    /** Guarded by this: the connection is in doubt, so new grants start suspended. */
    private boolean inDoubt;
    /** Guarded by this: bumped on every state change, so a stale check does not restore a grant. */
    private long epoch;
    /** Bumped on every LOST: an attempt that saw it change cannot trust the session it created its node in. */
    private volatile long sessionLosses;

    /**
     * @param timer where the watches of grants that are still held are set
     * @param watchAfter how old a grant is when its node gets its watch
     */
    SessionGuard(CuratorFramework client, ScheduledExecutorService timer, Duration watchAfter) {
        this.client = client;
        this.timer = timer;
        this.watchAfterNanos = watchAfter.toNanos();
    }

    /** @return a value to pass to {@link #track} for a node created after this call */
    long sessionMark() {
        return sessionLosses;
    }

    /**
     * Follows a new grant until it is {@link #untrack untracked}.
     *
     * @param grant the grant
     * @param sessionMark {@link #sessionMark()} taken before its node was created
     */
    void track(ZooKeeperGrant grant, long sessionMark) {
        long checkEpoch;
        synchronized (this) {
            grants.put(grant.path(), grant);
            if (inDoubt) {
                grant.listener().suspended();
            }
            checkEpoch = epoch;
        }
        if (sessionMark != sessionLosses) {
            lose(grant, "ZooKeeper session expired while the lock was being acquired");
            return;
        }
        unwatched.add(new Unwatched(grant, checkEpoch, System.nanoTime()));
        if (watchingScheduled.compareAndSet(false, true)) {
            watchLater(watchAfterNanos);
        }
    }

    /** Watches the nodes of the grants that are {@link #WATCH_AFTER} old and still held; comes back for the younger. */
    private void watchOldGrants() {
        long now = System.nanoTime();
        for (Unwatched u = unwatched.peek(); u != null && now - u.trackedNanos() >= watchAfterNanos; u = unwatched.peek()) {
            unwatched.poll();
            if (grants.get(u.grant().path()) == u.grant()) {
                check(u.grant(), u.checkEpoch(), true);
            }
        }
        watchingScheduled.set(false);
        Unwatched next = unwatched.peek();
        if (next != null && watchingScheduled.compareAndSet(false, true)) {
            watchLater(Math.max(0, next.trackedNanos() + watchAfterNanos - System.nanoTime()));
        }
    }

    private void watchLater(long delayNanos) {
        try {
            timer.schedule(this::watchOldGrants, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closed) {
            watchingScheduled.set(false); // the provider closed
        }
    }

    /** @return whether some grant is followed */
    boolean following() {
        return !grants.isEmpty();
    }

    /** @return true if the grant was still followed: nothing reported it lost */
    boolean untrack(ZooKeeperGrant grant) {
        return grants.remove(grant.path(), grant);
    }

    /** @return every followed grant, no longer followed */
    List<ZooKeeperGrant> untrackAll() {
        List<ZooKeeperGrant> all = new ArrayList<>(grants.values());
        all.forEach(this::untrack);
        return all;
    }

    @Override
    public void stateChanged(CuratorFramework c, ConnectionState state) {
        switch (state) {
            case SUSPENDED, READ_ONLY -> suspendAll();
            case CONNECTED, RECONNECTED -> verifyAll();
            case LOST -> loseAll();
            default -> log.debug("ignoring connection state {}", state);
        }
    }

    private synchronized void suspendAll() {
        inDoubt = true;
        epoch++;
        grants.values().forEach(g -> g.listener().suspended());
    }

    private void verifyAll() {
        long checkEpoch;
        List<ZooKeeperGrant> snapshot;
        synchronized (this) {
            inDoubt = false;
            checkEpoch = ++epoch;
            snapshot = List.copyOf(grants.values());
        }
        snapshot.forEach(g -> check(g, checkEpoch, false));
    }

    private void loseAll() {
        List<ZooKeeperGrant> snapshot;
        synchronized (this) {
            sessionLosses++;
            inDoubt = true;
            epoch++;
            snapshot = List.copyOf(grants.values());
        }
        snapshot.forEach(g -> lose(g, "ZooKeeper session expired (connection state LOST)"));
    }

    /**
     * Reads the grant's node back in the background; restores the grant if it is unchanged and nothing
     * happened to the connection since {@code checkEpoch}, loses it if the node is gone.
     *
     * @param watch also watch the node, so that its deletion is noticed while connected
     */
    private void check(ZooKeeperGrant grant, long checkEpoch, boolean watch) {
        BackgroundCallback answer = (c, event) -> checked(grant, checkEpoch, event);
        try {
            if (watch) {
                client.getData().usingWatcher((Watcher) event -> nodeEvent(grant, event)).inBackground(answer).forPath(grant.path());
            } else {
                client.checkExists().inBackground(answer).forPath(grant.path());
            }
        } catch (Exception e) {
            log.warn("could not check lock node {}: {}", grant.path(), e.toString());
        }
    }

    private void checked(ZooKeeperGrant grant, long checkEpoch, CuratorEvent event) {
        KeeperException.Code rc = KeeperException.Code.get(event.getResultCode());
        if (rc == KeeperException.Code.NONODE || rc == KeeperException.Code.OK && event.getStat() == null) {
            lose(grant, "its node " + grant.path() + " is gone (session expired or node deleted)");
        } else if (rc == KeeperException.Code.OK && event.getStat().getCzxid() != grant.fencingToken()) {
            lose(grant, "its node " + grant.path() + " was replaced");
        } else if (rc == KeeperException.Code.OK) {
            synchronized (this) {
                if (!inDoubt && epoch == checkEpoch && grants.get(grant.path()) == grant) {
                    grant.listener().restored();
                }
            }
        } else {
            log.debug("check of lock node {} failed ({}); the next connection event decides", grant.path(), rc);
        }
    }

    private void nodeEvent(ZooKeeperGrant grant, WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
            lose(grant, "its node " + grant.path() + " was deleted");
        }
    }

    private void lose(ZooKeeperGrant grant, String reason) {
        if (untrack(grant)) {
            grant.listener().lost(reason);
        }
    }
}
