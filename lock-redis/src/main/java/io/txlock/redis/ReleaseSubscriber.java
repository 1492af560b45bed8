package io.txlock.redis;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * What one provider hears from one Redis node in quorum mode: ONE pub/sub connection and thread, whatever the number
 * of waiters. A lock's release channel is subscribed while at least one local waiter wants it (a hint), and
 * unsubscribed when the last leaves; the provider's own channel is always subscribed, and its confirmation says the
 * connection is live. Started when a local thread first subscribes; after a lost connection it reconnects with
 * backoff. (A single master's waiters do not use it: each blocks on a list of its own, see {@link FairWait}.)
 *
 * <p>Subscribing never waits for the server: the caller's thread only asks, and the subscription's confirmation
 * wakes the channel's waiters once, since a release may have happened before the channel was live (also after a
 * reconnect): they try again. Messages may be lost: waiters look again now and then, so a lost message delays a
 * waiter, never hangs it.
 */
final class ReleaseSubscriber implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReleaseSubscriber.class);
    private static final long FIRST_RETRY_MILLIS = 50;
    private static final long MAX_RETRY_MILLIS = 2_000;

    private final String address;
    private final UnifiedJedis client;
    private final String ownChannel;
    private final Runnable onConnectionFailure;
    private final Object lock = new Object();
    /** Guarded by lock: the channels local waiters want. */
    private final Map<String, Topic> topics = new HashMap<>();
    /** Guarded by lock: the channels asked of the current connection. */
    private final Set<String> requested = new LinkedHashSet<>();
    /** Guarded by lock: the current connection once its own channel is confirmed, else null. */
    private Listener connected;
    /** Guarded by lock: the last connection attempt failed (logged once until it is back). */
    private boolean failing;
    /** Written under lock. */
    private volatile boolean closed;
    private Thread thread;

    /**
     * @param ownChannel the provider's own channel, subscribed as long as the connection lives
     * @param onConnectionFailure run when the connection breaks, before reconnecting: drops the client's other
     *     pooled connections, which the same failure has probably broken
     */
    ReleaseSubscriber(String address, UnifiedJedis client, String ownChannel, Runnable onConnectionFailure) {
        this.address = address;
        this.client = client;
        this.ownChannel = ownChannel;
        this.onConnectionFailure = onConnectionFailure;
    }

    /** Guarded by lock. */
    private void start() {
        if (thread == null && !closed) {
            thread = new Thread(this::run, "txlock-redis-subscriber-" + address);
            thread.setDaemon(true);
            thread.start();
        }
    }

    /**
     * Asks for {@code onRelease} to run on every release published on {@code channel}, and once when the
     * subscription is confirmed. Returns at once.
     *
     * @return a subscription; closing it unsubscribes the channel if no other callback wants it
     */
    AutoCloseable subscribe(String channel, Runnable onRelease) {
        Topic topic;
        synchronized (lock) {
            if (closed) {
                return () -> { };
            }
            start();
            topic = topics.computeIfAbsent(channel, Topic::new);
            topic.callbacks.add(onRelease);
            if (connected != null && requested.add(channel)) {
                send(() -> connected.subscribe(channel));
            }
        }
        return () -> unsubscribe(topic, onRelease);
    }

    private void unsubscribe(Topic topic, Runnable onRelease) {
        synchronized (lock) {
            topic.callbacks.remove(onRelease);
            if (!topic.callbacks.isEmpty() || topics.get(topic.channel) != topic) {
                return;
            }
            topics.remove(topic.channel);
            if (connected != null && requested.remove(topic.channel)) {
                send(() -> connected.unsubscribe(topic.channel));
            }
        }
    }

    @Override
    public void close() {
        Thread running;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            running = thread;
            if (connected != null) {
                send(() -> connected.unsubscribe());
            }
        }
        if (running != null) {
            running.interrupt();
            try {
                running.join(MAX_RETRY_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        long retry = FIRST_RETRY_MILLIS;
        while (true) {
            Listener listener = new Listener();
            String[] channels;
            synchronized (lock) {
                if (closed) {
                    return;
                }
                requested.clear();
                requested.add(ownChannel);
                requested.addAll(topics.keySet());
                channels = requested.toArray(String[]::new);
            }
            try {
                client.subscribe(listener, channels);
            } catch (RuntimeException e) {
                synchronized (lock) {
                    if (!failing && !closed) {
                        log.warn("redis {}: release notifications interrupted, waiters poll until it is back: {}", address,
                                e.toString());
                    }
                    failing = true;
                }
                if (e instanceof JedisConnectionException) {
                    onConnectionFailure.run();
                }
            }
            synchronized (lock) {
                if (connected == listener) {
                    connected = null;
                    retry = FIRST_RETRY_MILLIS;
                }
                if (closed) {
                    return;
                }
            }
            try {
                Thread.sleep(retry);
            } catch (InterruptedException e) {
                // closing, or not: the loop checks
            }
            retry = Math.min(MAX_RETRY_MILLIS, retry * 2);
        }
    }

    /**
     * The own channel is confirmed: catch up with the subscriptions that changed while connecting.
     */
    private void onConnected(Listener listener) {
        synchronized (lock) {
            if (closed) {
                send(listener::unsubscribe);
                return;
            }
            connected = listener;
            for (String channel : topics.keySet()) {
                if (requested.add(channel)) {
                    send(() -> listener.subscribe(channel));
                }
            }
            for (String channel : List.copyOf(requested)) {
                if (!channel.equals(ownChannel) && !topics.containsKey(channel)) {
                    requested.remove(channel);
                    send(() -> listener.unsubscribe(channel));
                }
            }
            if (failing) {
                log.info("redis {}: release notifications restored", address);
            }
            failing = false;
        }
    }

    /**
     * A channel is live (again): its waiters re-check once, since a release just before may have been missed; on a
     * new connection, whatever was released while it was down.
     */
    private void onSubscribed(String channel) {
        onReleased(channel);
    }

    private void onReleased(String channel) {
        Topic topic;
        synchronized (lock) {
            topic = topics.get(channel);
        }
        if (topic != null) {
            topic.callbacks.forEach(this::runHint);
        }
    }

    private void runHint(Runnable hint) {
        try {
            hint.run();
        } catch (RuntimeException e) {
            log.warn("redis {}: a release hint failed: {}", address, e.toString());
        }
    }

    /** Sends a (un)subscribe on the live connection; if it broke, the reading thread notices and reconnects. */
    private void send(Runnable command) {
        try {
            command.run();
        } catch (RuntimeException e) {
            log.debug("redis {}: pub/sub command failed, reconnecting: {}", address, e.toString());
        }
    }

    private static final class Topic {
        final String channel;
        final List<Runnable> callbacks = new CopyOnWriteArrayList<>();

        Topic(String channel) {
            this.channel = channel;
        }
    }

    private final class Listener extends JedisPubSub {
        @Override
        public void onSubscribe(String channel, int subscribedChannels) {
            if (channel.equals(ownChannel)) {
                onConnected(this);
            } else {
                onSubscribed(channel);
            }
        }

        @Override
        public void onMessage(String channel, String message) {
            if (!channel.equals(ownChannel)) {
                onReleased(channel);
            }
        }
    }
}
