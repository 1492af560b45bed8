package io.txlock.etcd;

import io.txlock.spi.LockProvider;
import io.txlock.testkit.LockContractTest;
import io.txlock.testkit.ProviderRecipe;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The shared contract on one private etcd member; every provider has its own jetcd client. */
class EtcdLockContractTest extends LockContractTest {

    private static EtcdCluster etcd;
    private static final String PREFIX = "/kit-" + UUID.randomUUID().toString().substring(0, 8) + "/";

    @BeforeAll
    static void startEtcd() {
        etcd = EtcdCluster.start(1, 50);
    }

    @AfterAll
    static void stopEtcd() {
        etcd.close();
    }

    private static String config() {
        return EtcdProviderFactory.config(etcd.endpoints(), PREFIX);
    }

    @Override
    protected LockProvider newProvider() {
        return new EtcdProviderFactory().create(config());
    }

    @Override
    protected ProviderRecipe recipe() {
        return new ProviderRecipe(EtcdProviderFactory.class, config());
    }

    @Override
    protected LockProvider newUnreachableProvider() {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new EtcdProviderFactory().create("endpoints=http://127.0.0.1:" + closedPort + ";prefix=" + PREFIX + ";timeoutMs=1000;warmUp=false");
    }

    /** A dead holder's key goes when its etcd lease expires: its TTL is the lease in whole seconds, at least etcd's minimum. */
    @Override
    protected Duration releaseAfterHolderDeath(Duration lease) {
        return Duration.ofSeconds(Math.max(EtcdLockProvider.ttlSeconds(lease), 1)).plusSeconds(1);
    }
}
