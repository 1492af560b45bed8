package io.txlock.etcd;

import io.etcd.jetcd.Client;
import io.txlock.servers.PrivateEtcd;
import io.txlock.servers.ServerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * Private {@code etcd} processes for the tests ({@link PrivateEtcd}): one member or a cluster, each with its data
 * directory under target/etcd, and a jetcd client on them.
 */
final class EtcdCluster implements AutoCloseable {

    private final PrivateEtcd etcd;

    private EtcdCluster(PrivateEtcd etcd) {
        this.etcd = etcd;
    }

    /**
     * @param size how many members
     * @param heartbeatMs etcd's heartbeat interval; its election timeout is ten of them, its shortest lease TTL the
     *     next whole second above fifteen of them
     * @return a started, healthy cluster
     */
    static EtcdCluster start(int size, int heartbeatMs) {
        Path dir = Path.of(System.getProperty("txlock.test.etcd.dir", "target/etcd")).resolve(UUID.randomUUID().toString().substring(0, 8));
        try {
            return new EtcdCluster(PrivateEtcd.start(dir, size, heartbeatMs));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    List<ServerProcess> members() {
        return etcd.members();
    }

    /** @return the client URLs of every member, comma-separated */
    String endpoints() {
        return etcd.endpoints();
    }

    /** @return a jetcd client on every member */
    Client client() {
        return Client.builder().endpoints(etcd.clientUrls().toArray(String[]::new)).connectTimeout(Duration.ofSeconds(2)).build();
    }

    /** @return the member that is the Raft leader now */
    ServerProcess leader() throws InterruptedException {
        return etcd.members().get(etcd.leader());
    }

    @Override
    public void close() {
        etcd.close();
    }
}
