package io.txlock.zookeeper;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Until when, on this JVM's monotonic clock, the ZooKeeper session is known to be alive. ZooKeeper expires a session
 * that it has not heard from for its negotiated timeout, and resets that timer on every request of the session. So
 * a request sent at {@code t} and answered successfully proves that the server cannot expire the session before
 * {@code t + timeout}; this JVM trusts it until {@code t + timeout - timeout/10} (the tenth allows for the clocks of
 * client and server running at slightly different rates).
 *
 * <p>The client's own pings are not visible, so while grants are held this clock sends a {@code sync} (which passes
 * through the leader, and touches the session like any request) every quarter of the timeout. A holder that was
 * paused longer than the timeout finds, on resuming, that the last answer is too old, before Curator has had a
 * chance to report the expired session.
 */
final class SessionClock {

    private static final Logger log = LoggerFactory.getLogger(SessionClock.class);
    private static final long MIN_PROBE_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** How often to look again while the client has never been connected (so no grant can exist yet). */
    private static final long UNCONNECTED_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** One successful request: its session, when it was sent, and the session's negotiated timeout. */
    private record Heard(long sessionId, long sentNanos, long aliveNanos) {
    }

    private final CuratorFramework client;
    private final BooleanSupplier needed;
    private final ScheduledExecutorService probes;
    private volatile Heard heard;

    /**
     * @param client the provider's Curator client
     * @param needed whether probes are needed now (some grant is held)
     * @param probes where the probes run, until it is shut down
     */
    SessionClock(CuratorFramework client, BooleanSupplier needed, ScheduledExecutorService probes) {
        this.client = client;
        this.needed = needed;
        this.probes = probes;
        schedule(0);
    }

    /**
     * @param sessionId a session
     * @param nanoTime a {@link System#nanoTime()} reading
     * @return whether that session is known to be alive then
     */
    boolean aliveAt(long sessionId, long nanoTime) {
        Heard h = heard;
        return h != null && h.sessionId() == sessionId && nanoTime - (h.sentNanos() + h.aliveNanos()) < 0;
    }

    /** A request sent at {@code sentNanos} was answered successfully, in the client's current session. */
    void heardFromCurrentSession(long sentNanos) {
        ZooKeeper zk;
        try {
            zk = client.getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            return; // no session to vouch for: grants of it stay not known alive until a probe is answered
        }
        heardFrom(zk, sentNanos);
    }

    private synchronized void heardFrom(ZooKeeper zk, long sentNanos) {
        long sessionId = zk.getSessionId();
        int timeoutMs = zk.getSessionTimeout();
        if (sessionId == 0 || timeoutMs <= 0) {
            return;
        }
        Heard h = heard;
        if (h == null || sentNanos - h.sentNanos() >= 0) {
            long timeout = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            heard = new Heard(sessionId, sentNanos, timeout - timeout / 10);
        }
    }

    private void probe() {
        long period = UNCONNECTED_PERIOD_NANOS;
        try {
            if (needed.getAsBoolean()) {
                ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
                long sent = System.nanoTime();
                zk.sync("/", (rc, path, ctx) -> {
                    if (rc == KeeperException.Code.OK.intValue()) {
                        heardFrom(zk, sent);
                    }
                }, null);
            }
            int timeoutMs = client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
            if (timeoutMs > 0) {
                period = Math.max(MIN_PROBE_PERIOD_NANOS, TimeUnit.MILLISECONDS.toNanos(timeoutMs) / 4);
            }
        } catch (Exception e) {
            log.debug("could not probe the ZooKeeper session: {}", e.toString());
        }
        schedule(period);
    }

    private void schedule(long delayNanos) {
        try {
            probes.schedule(this::probe, delayNanos, TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            // the provider closed
        }
    }
}
