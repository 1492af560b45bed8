package io.txlock.servers;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * An etcd cluster of a test's own: {@code size} members of the {@code etcd} binary on the PATH (Debian:
 * {@code apt-get install etcd-server}) on free loopback ports, each with its data under {@code dir}. A member is
 * crashed with {@code kill -9} and started again on its ports and data.
 */
public final class PrivateEtcd implements AutoCloseable {

    private final List<ServerProcess> members;
    private final List<String> clientUrls;

    private PrivateEtcd(List<ServerProcess> members, List<String> clientUrls) {
        this.members = members;
        this.clientUrls = clientUrls;
    }

    /**
     * @param dir where the members' data and logs go
     * @param size how many members
     * @param heartbeatMs etcd's heartbeat interval (its default is 100); the election timeout is ten of them, the
     *     shortest lease TTL the next whole second above fifteen of them
     * @return the cluster, every member healthy
     * @throws IOException if its directories cannot be made
     */
    public static PrivateEtcd start(Path dir, int size, int heartbeatMs) throws IOException {
        List<String> clientUrls = new ArrayList<>();
        List<String> peerUrls = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            clientUrls.add("http://127.0.0.1:" + Os.freePort());
            peerUrls.add("http://127.0.0.1:" + Os.freePort());
        }
        String initial = IntStream.range(0, size).mapToObj(i -> "m" + (i + 1) + "=" + peerUrls.get(i))
                .collect(Collectors.joining(","));
        String token = "txlock-" + Os.freePort();
        List<ServerProcess> members = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            Path member = Files.createDirectories(dir.resolve("m" + (i + 1)));
            String url = clientUrls.get(i);
            members.add(new ServerProcess("etcd member m" + (i + 1) + " at " + url, List.of("etcd", "--name", "m" + (i + 1),
                    "--data-dir", member.resolve("data").toAbsolutePath().toString(), "--listen-client-urls", url,
                    "--advertise-client-urls", url, "--listen-peer-urls", peerUrls.get(i),
                    "--initial-advertise-peer-urls", peerUrls.get(i), "--initial-cluster", initial,
                    "--initial-cluster-state", "new", "--initial-cluster-token", token,
                    "--heartbeat-interval", Integer.toString(heartbeatMs),
                    "--election-timeout", Integer.toString(10 * heartbeatMs),
                    "--log-level", "warn", "--logger", "zap"),
                    member.resolve("etcd.log"), () -> get(url, "/health").contains("\"health\":\"true\""), "KILL"));
        }
        PrivateEtcd cluster = new PrivateEtcd(List.copyOf(members), List.copyOf(clientUrls));
        try {
            members.forEach(ServerProcess::launch);
            members.forEach(ServerProcess::awaitReady);
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** @return its members, in the order of {@link #clientUrls()} */
    public List<ServerProcess> members() {
        return members;
    }

    /** @return each member's client URL */
    public List<String> clientUrls() {
        return clientUrls;
    }

    /** @return the client URLs of every member, comma-separated */
    public String endpoints() {
        return String.join(",", clientUrls);
    }

    /**
     * @return the index of the member that is the Raft leader now, waiting up to a minute for one
     * @throws InterruptedException if interrupted while waiting
     */
    public int leader() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < members.size(); i++) {
                try {
                    if (members.get(i).isRunning()
                            && get(clientUrls.get(i), "/metrics").lines().anyMatch(l -> l.startsWith("etcd_server_is_leader 1"))) {
                        return i;
                    }
                } catch (IOException down) {
                    // ask the next one
                }
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the etcd cluster at " + endpoints() + " elected no leader within 60 s");
    }

    /**
     * @param clientUrl a member's client URL
     * @param path e.g. {@code /health}
     * @return the body of a GET
     * @throws IOException if the member does not answer
     */
    public static String get(String clientUrl, String path) throws IOException {
        HttpURLConnection http = (HttpURLConnection) URI.create(clientUrl + path).toURL().openConnection();
        http.setConnectTimeout(1000);
        http.setReadTimeout(2000);
        try (InputStream in = http.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            http.disconnect();
        }
    }

    @Override
    public void close() {
        members.forEach(ServerProcess::close);
    }
}
