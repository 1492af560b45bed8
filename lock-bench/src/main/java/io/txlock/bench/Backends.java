package io.txlock.bench;

import java.time.Duration;

/** Opens the {@link Backend} a spec names. */
final class Backends {

    private Backends() {
    }

    /**
     * @param spec which backend, where
     * @param connections how many connections its runs may use at once
     * @param rowLockConnections how many of them LEASE row locks may hold at once, from a pool of their own
     * @param workerJvms whether worker JVMs will use it too
     * @param lease how long a dead holder's lock may outlive it (a ZooKeeper session timeout)
     * @return the backend, in a fresh namespace unless the spec is {@link BackendSpec#prepared() prepared}
     * @throws Exception if the backend cannot be reached
     */
    static Backend open(BackendSpec spec, int connections, int rowLockConnections, boolean workerJvms, Duration lease) throws Exception {
        return switch (spec.kind()) {
            case H2, POSTGRESQL, MARIADB, MYSQL -> JdbcBackend.open(spec, connections, rowLockConnections, workerJvms);
            case REDIS -> RedisBackend.open(spec, connections);
            case ZOOKEEPER -> ZooKeeperBackend.open(spec, connections, lease);
            case ETCD -> EtcdBackend.open(spec, connections);
            case NONE -> new UnsafeBackend(connections);
        };
    }
}
