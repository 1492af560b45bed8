package io.txlock.servers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;

/**
 * A MariaDB server of a test's own: {@code mariadb-install-db} under target/, {@code mariadbd} on a free loopback
 * port without grant tables (root, no password). A crash is {@code kill -9}; InnoDB recovers on the next start.
 */
public final class PrivateMariaDb extends PortServer {

    private PrivateMariaDb(int port, ServerProcess server) {
        super(port, server);
    }

    /**
     * @param where where its data and log live
     * @return the started server
     * @throws Exception if it cannot be installed or started
     */
    public static PrivateMariaDb start(Path where) throws Exception {
        Path dir = where.toAbsolutePath();
        Files.createDirectories(dir);
        Path data = dir.resolve("data");
        List<String> asRoot = Os.root() ? List.of("--user=root") : List.of();
        if (!Files.exists(data.resolve("mysql"))) {
            List<String> install = new ArrayList<>(List.of("mariadb-install-db", "--no-defaults", "--datadir=" + data,
                    "--auth-root-authentication-method=normal", "--skip-test-db"));
            install.addAll(asRoot);
            Os.run(install);
        }
        int port = Os.freePort();
        List<String> command = new ArrayList<>(List.of("mariadbd", "--no-defaults", "--datadir=" + data,
                "--port=" + port, "--bind-address=127.0.0.1", "--socket=" + dir.resolve("mariadb.sock"),
                "--pid-file=" + dir.resolve("mariadb.pid"), "--skip-grant-tables", "--skip-log-bin",
                "--innodb-buffer-pool-size=32M", "--innodb-flush-log-at-trx-commit=2", "--max-connections=200"));
        command.addAll(asRoot);
        String url = url(port, "");
        ServerProcess server = new ServerProcess("MariaDB on port " + port, command, dir.resolve("mariadb.log"), () -> {
            try (Connection c = DriverManager.getConnection(url)) {
                return c.isValid(5);
            }
        }, "KILL");
        server.start();
        return new PrivateMariaDb(port, server);
    }

    private static String url(int port, String database) {
        return "jdbc:mariadb://127.0.0.1:" + port + "/" + database + "?user=root&connectTimeout=5000&socketTimeout=60000";
    }

    /**
     * @param database the database, or empty for none
     * @return its JDBC URL, user root without password
     */
    public String url(String database) {
        return url(port(), database);
    }
}
