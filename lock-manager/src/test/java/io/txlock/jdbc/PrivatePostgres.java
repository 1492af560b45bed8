package io.txlock.jdbc;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL server of a test's own, which the test may crash and restart: its own data directory under
 * {@code target/}, its own free port on 127.0.0.1, run as the {@code postgres} user (PostgreSQL refuses root).
 * The shared server is never touched; only the processes this class started are stopped.
 */
final class PrivatePostgres implements AutoCloseable {

    private static final Duration START = Duration.ofSeconds(60);

    private final Path dir;
    private final Path bin;
    private final int port;

    private PrivatePostgres(Path dir, Path bin, int port) {
        this.dir = dir;
        this.bin = bin;
        this.port = port;
    }

    /** @return a new server, initialised and started */
    static PrivatePostgres start() throws IOException, InterruptedException {
        Path bin;
        try (var versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            bin = versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("initdb"))).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no PostgreSQL server binaries under /usr/lib/postgresql"));
        }
        Path dir = Files.createTempDirectory(Files.createDirectories(Path.of("target", "private-postgres")).toAbsolutePath(), "pg");
        PrivatePostgres pg = new PrivatePostgres(dir, bin, freePort());
        pg.run("chown", "-R", "postgres", dir.toString());
        pg.run("chmod", "o+rx", dir.getParent().toString(), dir.getParent().getParent().toString());
        pg.asPostgres(bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(), "-A", "trust", "-U", "postgres", "--no-sync");
        Runtime.getRuntime().addShutdownHook(new Thread(pg::stopQuietly));
        pg.startServer();
        return pg;
    }

    String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    /** Crashes the server (SIGQUIT to every process: no checkpoint, as on a power loss) and starts it again. */
    void crashAndRestart() throws IOException, InterruptedException {
        asPostgres(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "immediate", "-w", "stop");
        startServer();
    }

    private void startServer() throws IOException, InterruptedException {
        asPostgres(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-w", "-t", String.valueOf(START.toSeconds()),
                "-l", dir.resolve("server.log").toString(), "-o",
                "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40", "start");
        long deadline = System.nanoTime() + START.toNanos();
        while (true) {
            try (Connection c = DriverManager.getConnection(url(), "postgres", "")) {
                return;
            } catch (SQLException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("private PostgreSQL on port " + port + " did not come up", e);
                }
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
    }

    private void asPostgres(String... command) throws IOException, InterruptedException {
        List<String> all = new ArrayList<>(List.of("runuser", "-u", "postgres", "--"));
        all.addAll(List.of(command));
        run(all.toArray(String[]::new));
    }

    private void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("commands.log").toFile()).start();
        if (!p.waitFor(START.toSeconds(), TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " failed; see " + dir.resolve("commands.log"));
        }
    }

    private void stopQuietly() {
        try {
            asPostgres(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "immediate", "stop");
        } catch (IOException | RuntimeException e) {
            // stopped already
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        stopQuietly();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
