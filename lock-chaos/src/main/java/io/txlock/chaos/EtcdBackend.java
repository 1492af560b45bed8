package io.txlock.chaos;

import io.etcd.jetcd.Client;
import io.txlock.etcd.EtcdLockProvider;
import io.txlock.spi.LockProvider;
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

/**
 * etcd: a three-member cluster of private {@code etcd} processes, with a follower and then the leader killed
 * ({@code kill -9}) and restarted on their data. Holder configuration: {@code <client urls> <key prefix>}.
 */
final class EtcdBackend implements ChaosBackend {

    private static final Duration TIMEOUT = Duration.ofSeconds(3);

    private final List<ServerProcess> members = new ArrayList<>();
    private final List<String> clientUrls = new ArrayList<>();

    /** For {@link Backends} and holder JVMs. */
    EtcdBackend() {
    }

    @Override
    public String name() {
        return "etcd";
    }

    @Override
    public List<String> strategies() {
        return List.of("LEASE_REVISION");
    }

    @Override
    public void start(Path dir) throws Exception {
        List<String> peers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            clientUrls.add("http://127.0.0.1:" + Os.freePort());
            peers.add("http://127.0.0.1:" + Os.freePort());
        }
        String initial = java.util.stream.IntStream.range(0, 3).mapToObj(i -> "m" + (i + 1) + "=" + peers.get(i))
                .collect(Collectors.joining(","));
        String token = "chaos-" + Os.freePort();
        for (int i = 0; i < 3; i++) {
            Path member = Files.createDirectories(dir.resolve("m" + (i + 1)));
            String url = clientUrls.get(i);
            members.add(new ServerProcess("etcd member m" + (i + 1) + " at " + url, List.of("etcd", "--name", "m" + (i + 1),
                    "--data-dir", member.resolve("data").toString(), "--listen-client-urls", url,
                    "--advertise-client-urls", url, "--listen-peer-urls", peers.get(i),
                    "--initial-advertise-peer-urls", peers.get(i), "--initial-cluster", initial,
                    "--initial-cluster-state", "new", "--initial-cluster-token", token,
                    "--log-level", "warn", "--logger", "zap"),
                    member.resolve("etcd.log"), () -> get(url, "/health").contains("\"health\":\"true\""), "KILL"));
        }
        members.forEach(ServerProcess::launch);
        members.forEach(ServerProcess::awaitReady);
    }

    @Override
    public String holderConfig(String strategy, String runId) {
        return String.join(",", clientUrls) + " /chaos-" + runId + "/";
    }

    @Override
    public LockProvider provider(String config) {
        String[] parts = config.split(" ", 2);
        Client client = Client.builder().endpoints(parts[0].split(",")).connectTimeout(TIMEOUT).build();
        return EtcdLockProvider.builder(client).keyPrefix(parts[1]).requestTimeout(TIMEOUT).closeClient(true).build();
    }

    @Override
    public List<FaultKind> backendFaults() {
        return List.of(FaultKind.KILL_MEMBER, FaultKind.KILL_LEADER);
    }

    @Override
    public String inject(FaultKind fault, Duration lease) throws Exception {
        int leader = leader();
        int victim = switch (fault) {
            case KILL_LEADER -> leader;
            case KILL_MEMBER -> (leader + 1) % members.size();
            default -> throw new IllegalArgumentException("etcd has no fault " + fault);
        };
        members.get(victim).crash();
        leader();
        members.get(victim).start();
        return "member m" + (victim + 1);
    }

    /** @return the index of the member that is the Raft leader now, waiting up to a minute for one */
    private int leader() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < members.size(); i++) {
                try {
                    if (get(clientUrls.get(i), "/metrics").lines().anyMatch(l -> l.startsWith("etcd_server_is_leader 1"))) {
                        return i;
                    }
                } catch (IOException down) {
                    // ask the next one
                }
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the etcd cluster elected no leader within 60 s");
    }

    private static String get(String url, String path) throws IOException {
        HttpURLConnection http = (HttpURLConnection) URI.create(url + path).toURL().openConnection();
        http.setConnectTimeout(1000);
        http.setReadTimeout(2000);
        try (InputStream in = http.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            http.disconnect();
        }
    }

    /** A dead holder keeps its lock until its etcd lease runs out: the lease rounded up to whole seconds. */
    @Override
    public Duration deadHolderBound(Duration lease) {
        return Duration.ofSeconds((lease.toMillis() + 999) / 1000);
    }

    @Override
    public void close() {
        members.forEach(ServerProcess::close);
    }
}
