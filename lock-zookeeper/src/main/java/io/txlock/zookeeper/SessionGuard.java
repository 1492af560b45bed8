package io.txlock.zookeeper;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
 * each holder's own node loses the grant when the node is deleted by anyone else.
 */
final class SessionGuard implements ConnectionStateListener {

    private static final Logger log = LoggerFactory.getLogger(SessionGuard.class);

    private final CuratorFramework client;
    private final Map<String, ZooKeeperGrant> grants = new ConcurrentHashMap<>();
    /** Guarded by this: the connection is in doubt, so new grants start suspended. */
    private boolean inDoubt;
    /** Guarded by this: bumped on every state change, so a stale check does not restore a grant. */
    private long epoch;
    /** Bumped on every LOST: an attempt that saw it change cannot trust the session it created its node in. */
    private volatile long sessionLosses;

    SessionGuard(CuratorFramework client) {
        this.client = client;
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
        check(grant, checkEpoch, true);
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
