package io.txlock.etcd;

import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.Client;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Private {@code etcd} processes for the tests: one member or a cluster, on free ports of 127.0.0.1, each with its
 * data directory under target/etcd. Only the processes it started are ever killed, also when the JVM exits.
 */
final class EtcdCluster implements AutoCloseable {

    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(Process::destroyForcibly), "etcd-test-reaper"));
    }

    private final List<Member> members = new ArrayList<>();

    private EtcdCluster() {
    }

    /**
     * @param size how many members
     * @param heartbeatMs etcd's heartbeat interval; its election timeout is ten of them, its shortest lease TTL the
     *     next whole second above fifteen of them
     * @return a started, healthy cluster
     */
    static EtcdCluster start(int size, int heartbeatMs) {
        Path base = Path.of(System.getProperty("txlock.test.etcd.dir", "target/etcd"))
                .resolve(UUID.randomUUID().toString().substring(0, 8));
        int[] ports = freePorts(2 * size);
        EtcdCluster cluster = new EtcdCluster();
        for (int i = 0; i < size; i++) {
            cluster.members.add(new Member("m" + (i + 1), ports[2 * i], ports[2 * i + 1], base.resolve("m" + (i + 1)), heartbeatMs));
        }
        String initial = cluster.members.stream().map(m -> m.name + "=" + m.peerUrl()).collect(Collectors.joining(","));
        String token = base.getFileName().toString();
        try {
            for (Member m : cluster.members) {
                m.initialCluster = initial;
                m.clusterToken = token;
                m.launch();
            }
            for (Member m : cluster.members) {
                m.awaitHealthy();
            }
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    List<Member> members() {
        return members;
    }

    /** @return the client URLs of every member, comma-separated */
    String endpoints() {
        return members.stream().map(Member::clientUrl).collect(Collectors.joining(","));
    }

    /** @return a jetcd client on every member */
    Client client() {
        return Client.builder().endpoints(members.stream().map(Member::clientUrl).toArray(String[]::new))
                .connectTimeout(Duration.ofSeconds(2)).build();
    }

    /** @return the member that is the Raft leader now, as a running member sees it */
    Member leader() {
        return await("an etcd leader").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .ignoreExceptions().until(() -> {
                    for (Member m : members) {
                        if (m.isRunning() && m.isLeader()) {
                            return m;
                        }
                    }
                    return null;
                }, m -> m != null);
    }

    @Override
    public void close() {
        members.forEach(Member::kill);
    }

    private static int[] freePorts(int count) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0);
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket s : sockets) {
                try {
                    s.close();
                } catch (IOException e) {
                    // free anyway
                }
            }
        }
    }

    /** One etcd process, which can be killed (kill -9) and started again on the same ports and data. */
    static final class Member {
        final String name;
        final int clientPort;
        final int peerPort;
        final Path dir;
        final int heartbeatMs;
        String initialCluster;
        String clusterToken;
        private Process process;

        Member(String name, int clientPort, int peerPort, Path dir, int heartbeatMs) {
            this.name = name;
            this.clientPort = clientPort;
            this.peerPort = peerPort;
            this.dir = dir;
            this.heartbeatMs = heartbeatMs;
        }

        String clientUrl() {
            return "http://127.0.0.1:" + clientPort;
        }

        String peerUrl() {
            return "http://127.0.0.1:" + peerPort;
        }

        synchronized void launch() {
            List<String> command = List.of("etcd", "--name", name,
                    "--data-dir", dir.resolve("data").toAbsolutePath().toString(),
                    "--listen-client-urls", clientUrl(), "--advertise-client-urls", clientUrl(),
                    "--listen-peer-urls", peerUrl(), "--initial-advertise-peer-urls", peerUrl(),
                    "--initial-cluster", initialCluster, "--initial-cluster-state", "new",
                    "--initial-cluster-token", clusterToken,
                    "--heartbeat-interval", Integer.toString(heartbeatMs),
                    "--election-timeout", Integer.toString(10 * heartbeatMs),
                    "--log-level", "warn", "--logger", "zap");
            try {
                Files.createDirectories(dir);
                process = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("etcd.log").toFile())).start();
            } catch (IOException e) {
                throw new UncheckedIOException("could not start etcd (Debian: apt-get install etcd-server): " + command, e);
            }
            RUNNING.add(process);
        }

        /** Waits until the member answers /health with a leader. */
        void awaitHealthy() {
            Process started = process;
            await(name + " healthy at " + clientUrl()).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .failFast(name + " exited: see " + dir.resolve("etcd.log"), () -> !started.isAlive())
                    .ignoreExceptions().until(() -> get("/health").contains("\"health\":\"true\""));
        }

        /** kill -9 */
        synchronized void kill() {
            if (process != null) {
                process.destroyForcibly();
                try {
                    process.waitFor();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                RUNNING.remove(process);
                process = null;
            }
        }

        synchronized boolean isRunning() {
            return process != null && process.isAlive();
        }

        boolean isLeader() throws IOException {
            // etcd_server_is_leader 1 in the member's own metrics
            return get("/metrics").lines().anyMatch(l -> l.startsWith("etcd_server_is_leader 1"));
        }

        private String get(String path) throws IOException {
            HttpURLConnection http = (HttpURLConnection) URI.create(clientUrl() + path).toURL().openConnection();
            http.setConnectTimeout(1000);
            http.setReadTimeout(2000);
            try (InputStream in = http.getInputStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } finally {
                http.disconnect();
            }
        }

        @Override
        public String toString() {
            return "etcd " + name + " at " + clientUrl();
        }
    }
}
