package io.txlock.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A PostgreSQL cluster of a test's own: {@code initdb} under target/, {@code postgres} on a free loopback port and
 * no Unix socket (its path could be too long), run as the {@code postgres} user when the build runs as root. A crash
 * is an immediate shutdown ({@code SIGQUIT} to the postmaster): connections drop at once, the next start recovers.
 */
public final class PrivatePostgres extends PortServer {

    private final Path temporary;

    private PrivatePostgres(int port, ServerProcess server, Path temporary) {
        super(port, server);
        this.temporary = temporary;
    }

    /**
     * @param where where the cluster should live; when the build runs as root and the {@code postgres} user cannot
     *     reach it (a checkout under /root), a fresh directory under the system's temporary directory instead
     * @return the started server
     * @throws IOException if its directories cannot be made
     */
    public static PrivatePostgres start(Path where) throws IOException {
        Path wanted = where.toAbsolutePath();
        Path bin = binDir();
        Files.createDirectories(wanted);
        Path dir = Os.root() && !Os.reachableByOthers(wanted)
                ? Files.createTempDirectory("txlock-postgresql-") : wanted;
        if (!dir.equals(wanted)) {
            Files.writeString(wanted.resolve("MOVED"), "the postgres user cannot reach this directory: the cluster is in " + dir + "\n");
        }
        Path data = dir.resolve("data");
        List<String> asPostgres = Os.asUser("postgres");
        if (Os.root()) {
            Os.chown(dir, "postgres");
        }
        if (!Files.exists(data.resolve("PG_VERSION"))) {
            List<String> initdb = new ArrayList<>(asPostgres);
            initdb.addAll(List.of(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", "postgres",
                    "-A", "trust", "-N", "-E", "UTF8", "--locale=C"));
            Os.run(initdb);
        }
        int port = Os.freePort();
        List<String> command = new ArrayList<>(asPostgres);
        command.addAll(List.of(bin.resolve("postgres").toString(), "-D", data.toString(), "-p", Integer.toString(port),
                "-c", "unix_socket_directories=", "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
                "-c", "max_connections=100", "-c", "shared_buffers=16MB"));
        String url = url(port);
        ServerProcess server = new ServerProcess("PostgreSQL on port " + port, command, dir.resolve("postgres.log"), () -> {
            try (Connection c = DriverManager.getConnection(url)) {
                return c.isValid(5);
            }
        }, "QUIT");
        server.start();
        return new PrivatePostgres(port, server, dir.equals(wanted) ? null : dir);
    }

    private static String url(int port) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres&connectTimeout=5&socketTimeout=60";
    }

    /** @return the JDBC URL of its {@code postgres} database, user {@code postgres} */
    public String url() {
        return url(port());
    }

    @Override
    public void close() {
        super.close();
        if (temporary != null) {
            Os.deleteTree(temporary);
        }
    }

    private static Path binDir() throws IOException {
        String given = System.getProperty("txlock.postgresql.bin");
        if (given != null) {
            return Path.of(given);
        }
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            throw new IllegalStateException("PostgreSQL server binaries not found under " + root
                    + ": install postgresql or give -Dtxlock.postgresql.bin=<dir with initdb and postgres>");
        }
        try (Stream<Path> versions = Files.list(root)) {
            return versions.filter(v -> Files.isExecutable(v.resolve("bin/postgres")))
                    .max(Comparator.comparingInt(v -> Integer.parseInt(v.getFileName().toString().replaceAll("\\D", "0"))))
                    .map(v -> v.resolve("bin"))
                    .orElseThrow(() -> new IllegalStateException("no bin/postgres under " + root));
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
