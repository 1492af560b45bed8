package io.txlock.redis;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;

/**
 * A private {@code redis-server} process on a free port, with its own directory under target/, no persistence:
 * for tests that kill, restart or configure a server. Never the shared one.
 */
final class RedisServer implements AutoCloseable {

    private final int port;
    private final Path dir;
    private final List<String> extraArgs;
    private final JedisClientConfig pingConfig;
    private Process process;

    private RedisServer(int port, Path dir, List<String> extraArgs, JedisClientConfig pingConfig) {
        this.port = port;
        this.dir = dir;
        this.extraArgs = extraArgs;
        this.pingConfig = pingConfig;
    }

    static RedisServer start(String... extraArgs) {
        return start(DefaultJedisClientConfig.builder().build(), extraArgs);
    }

    /**
     * @param pingConfig how to reach the server to see that it is up (password, TLS)
     * @param extraArgs more {@code redis-server} options
     */
    static RedisServer start(JedisClientConfig pingConfig, String... extraArgs) {
        try {
            Path dir = Files.createDirectories(SharedRedis.buildDir().resolve("redis-servers")
                    .resolve(UUID.randomUUID().toString().substring(0, 8)));
            RedisServer server = new RedisServer(SharedRedis.freePort(), dir, List.of(extraArgs), pingConfig);
            server.restart();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int port() {
        return port;
    }

    HostAndPort address() {
        return new HostAndPort("127.0.0.1", port);
    }

    /** Starts the server (again) on its port, and returns when it answers PING. */
    void restart() {
        List<String> command = new ArrayList<>(List.of("redis-server", "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--daemonize", "no", "--dir", dir.toAbsolutePath().toString()));
        boolean tls = extraArgs.contains("--tls-port");
        if (!tls) {
            command.addAll(List.of("--port", Integer.toString(port)));
        } else {
            command.addAll(List.of("--port", "0"));
        }
        extraArgs.forEach(a -> command.add(a.equals("{port}") ? Integer.toString(port) : a));
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start redis-server: is it installed?", e);
        }
        Process started = process;
        await("redis-server on port " + port).atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                .failFast("redis-server exited: see " + dir.resolve("redis.log"), () -> !started.isAlive())
                .ignoreExceptions().until(() -> {
                    try (Jedis jedis = new Jedis(address(), pingConfig)) {
                        return "PONG".equals(jedis.ping());
                    }
                });
    }

    /** kill -9: the server loses everything it held in memory. */
    void kill() {
        if (process != null) {
            process.destroyForcibly();
            try {
                process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        kill();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // left under target/, removed by mvn clean
        }
    }

    @Override
    public String toString() {
        return "redis-server on port " + port;
    }
}
