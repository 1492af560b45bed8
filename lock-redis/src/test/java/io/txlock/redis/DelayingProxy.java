package io.txlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.HostAndPort;

/**
 * A TCP proxy on 127.0.0.1 in front of a Redis server that passes requests on at once and can hold back the server's
 * replies: a server that applies a command in time but whose answer comes late. Replies keep their order.
 */
final class DelayingProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final HostAndPort target;
    private final List<Socket> sockets = new ArrayList<>();
    private volatile long replyDelayNanos;
    private volatile boolean closed;

    DelayingProxy(HostAndPort target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        daemon("proxy-accept", this::accept);
    }

    /** @return where clients connect */
    HostAndPort address() {
        return new HostAndPort("127.0.0.1", listener.getLocalPort());
    }

    /** @param delay how long every reply read from the server from now on is held back */
    void delayReplies(Duration delay) {
        replyDelayNanos = delay.toNanos();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(target.getHost(), target.getPort());
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                synchronized (sockets) {
                    sockets.add(client);
                    sockets.add(server);
                }
                daemon("proxy-requests", () -> pump(client, server, false));
                daemon("proxy-replies", () -> pump(server, client, true));
            } catch (IOException e) {
                if (!closed) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        }
    }

    /** A chunk of bytes and when it may be passed on. */
    private record Chunk(byte[] bytes, long dueNanos) {
    }

    private void pump(Socket from, Socket to, boolean delayed) {
        BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
        Chunk end = new Chunk(new byte[0], 0);
        daemon("proxy-writer", () -> {
            try (OutputStream out = to.getOutputStream()) {
                while (true) {
                    Chunk chunk = queue.take();
                    if (chunk == end) {
                        return;
                    }
                    long wait = chunk.dueNanos() - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    out.write(chunk.bytes());
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                closeQuietly(from);
            }
        });
        try (InputStream in = from.getInputStream()) {
            byte[] buffer = new byte[16384];
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                long due = System.nanoTime() + (delayed ? replyDelayNanos : 0);
                queue.add(new Chunk(Arrays.copyOf(buffer, n), due));
            }
        } catch (IOException e) {
            // the connection closed
        }
        queue.add(end);
    }

    private static void daemon(String name, Runnable work) {
        Thread thread = new Thread(work, name);
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        synchronized (sockets) {
            sockets.forEach(DelayingProxy::closeQuietly);
        }
    }
}
