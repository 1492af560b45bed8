package io.txlock.bench;

import io.txlock.servers.Os;
import io.txlock.servers.PrivateEtcd;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A private {@code etcd} server for the bench when no {@code --etcd} is given ({@link PrivateEtcd}): the {@code etcd}
 * binary on the PATH (Debian: {@code apt-get install etcd-server}), one member on free ports of 127.0.0.1, its data
 * in a temporary directory deleted on close. Killed on close and when the JVM exits.
 */
final class EtcdServerProcess implements AutoCloseable {

    private final PrivateEtcd etcd;
    private final Path dir;

    private EtcdServerProcess(PrivateEtcd etcd, Path dir) {
        this.etcd = etcd;
        this.dir = dir;
    }

    /**
     * @return a started, healthy member
     * @throws IllegalStateException if {@code etcd} is missing or does not come up
     */
    static EtcdServerProcess start() {
        Path dir;
        try {
            dir = Files.createTempDirectory("txlock-bench-etcd-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            return new EtcdServerProcess(PrivateEtcd.start(dir, 1, 100), dir);
        } catch (IOException | UncheckedIOException e) {
            Os.deleteTree(dir);
            throw new IllegalStateException("no etcd to start: install it (Debian: apt-get install etcd-server), or point"
                    + " --etcd at a running one", e);
        }
    }

    String clientUrl() {
        return etcd.endpoints();
    }

    /**
     * @param clientUrl a member's client URL
     * @param path e.g. {@code /version}
     * @return the body of a GET
     * @throws IOException if the member does not answer
     */
    static String get(String clientUrl, String path) throws IOException {
        return PrivateEtcd.get(clientUrl, path);
    }

    @Override
    public void close() {
        etcd.close();
        Os.deleteTree(dir);
    }
}
