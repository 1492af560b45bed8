package io.txlock.chaos;

import io.txlock.jdbc.JdbcDialect;
import io.txlock.servers.PrivatePostgres;
import io.txlock.servers.PrivateServer;
import java.nio.file.Path;

/** PostgreSQL: a private cluster, crashed by an immediate shutdown and started again. */
final class PostgresBackend extends JdbcChaosBackend {

    private PrivatePostgres server;

    /** For {@link Backends} and holder JVMs. */
    PostgresBackend() {
        super(JdbcDialect.POSTGRESQL);
    }

    @Override
    PrivateServer launch(Path dir) throws Exception {
        server = PrivatePostgres.start(dir);
        return server;
    }

    @Override
    String jdbcUrl() {
        return server.url();
    }
}
