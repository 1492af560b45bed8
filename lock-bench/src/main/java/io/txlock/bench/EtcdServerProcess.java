package io.txlock.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A private {@code etcd} server for the bench when no {@code --etcd} is given: the {@code etcd} binary on the PATH
 * (Debian: {@code apt-get install etcd-server}), one member on free ports of 127.0.0.1, its data in a temporary
 * directory deleted on close. Killed on close and when the JVM exits.
 */
final class EtcdServerProcess implements AutoCloseable {

    private final Process process;
    private final Path dir;
    private final String clientUrl;
    private final Thread reaper;

    private EtcdServerProcess(Process process, Path dir, String clientUrl) {
        this.process = process;
        this.dir = dir;
        this.clientUrl = clientUrl;
        this.reaper = new Thread(process::destroyForcibly, "lock-bench-etcd-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    /**
     * @return a started, healthy member
     * @throws IllegalStateException if {@code etcd} is missing or does not come up within 60 s
     */
    static EtcdServerProcess start() {
        try {
            Path dir = Files.createTempDirectory("txlock-bench-etcd-");
            int clientPort;
            int peerPort;
            try (ServerSocket a = new ServerSocket(0); ServerSocket b = new ServerSocket(0)) {
                clientPort = a.getLocalPort();
                peerPort = b.getLocalPort();
            }
            String client = "http://127.0.0.1:" + clientPort;
            String peer = "http://127.0.0.1:" + peerPort;
            List<String> command = List.of("etcd", "--name", "bench", "--data-dir", dir.resolve("data").toString(),
                    "--listen-client-urls", client, "--advertise-client-urls", client,
                    "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                    "--initial-cluster", "bench=" + peer, "--log-level", "warn", "--logger", "zap");
            Process process;
            try {
                process = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("etcd.log").toFile())).start();
            } catch (IOException e) {
                throw new IllegalStateException("no etcd to start: install it (Debian: apt-get install etcd-server), or point"
                        + " --etcd at a running one", e);
            }
            EtcdServerProcess server = new EtcdServerProcess(process, dir, client);
            server.awaitHealthy();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String clientUrl() {
        return clientUrl;
    }

    private void awaitHealthy() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() - deadline < 0) {
            if (!process.isAlive()) {
                close();
                throw new IllegalStateException("etcd exited at start: see " + dir.resolve("etcd.log"));
            }
            try {
                if (get(clientUrl, "/health").contains("\"health\":\"true\"")) {
                    return;
                }
            } catch (IOException notYet) {
                // starting
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        close();
        throw new IllegalStateException("etcd at " + clientUrl + " was not healthy within 60 s");
    }

    /**
     * @param clientUrl a member's client URL
     * @param path e.g. {@code /version}
     * @return the body of a GET
     * @throws IOException if the member does not answer
     */
    static String get(String clientUrl, String path) throws IOException {
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
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(reaper);
        } catch (IllegalStateException exiting) {
            // the hook runs anyway
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("could not delete " + dir + ": " + e);
        }
    }
}
