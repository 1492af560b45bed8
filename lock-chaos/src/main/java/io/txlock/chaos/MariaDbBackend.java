package io.txlock.chaos;

import io.txlock.jdbc.JdbcDialect;
import io.txlock.servers.PrivateMariaDb;
import io.txlock.servers.PrivateServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/** MariaDB: a private server, killed with {@code kill -9} and started again. */
final class MariaDbBackend extends JdbcChaosBackend {

    private static final String DATABASE = "chaos";

    private PrivateMariaDb server;

    /** For {@link Backends} and holder JVMs. */
    MariaDbBackend() {
        super(JdbcDialect.MARIADB);
    }

    @Override
    PrivateServer launch(Path dir) throws Exception {
        server = PrivateMariaDb.start(dir);
        try (Connection c = DriverManager.getConnection(server.url("")); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE IF NOT EXISTS " + DATABASE + " CHARACTER SET utf8mb4");
        }
        return server;
    }

    @Override
    String jdbcUrl() {
        return server.url(DATABASE);
    }
}
