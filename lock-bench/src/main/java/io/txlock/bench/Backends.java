package io.txlock.bench;

import java.sql.SQLException;

/** Opens the {@link Backend} a spec names. */
final class Backends {

    private Backends() {
    }

    /**
     * @param spec which backend, where
     * @param connections how many connections its runs may use at once
     * @param workerJvms whether worker JVMs will use it too
     * @return the backend, in a fresh namespace unless the spec is {@link BackendSpec#prepared() prepared}
     * @throws SQLException if a database cannot be reached
     */
    static Backend open(BackendSpec spec, int connections, boolean workerJvms) throws SQLException {
        return switch (spec.kind()) {
            case H2, POSTGRESQL, MARIADB, MYSQL -> JdbcBackend.open(spec, connections, workerJvms);
            case NONE -> new UnsafeBackend(connections);
        };
    }
}
