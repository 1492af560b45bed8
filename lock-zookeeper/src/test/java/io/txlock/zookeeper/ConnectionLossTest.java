package io.txlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockNotHeldException;
import io.txlock.LockOptions;
import io.txlock.spi.TransactionSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A private server per test, stopped and restarted under a holder. */
class ConnectionLossTest {

    private static final Duration AWAIT = Duration.ofSeconds(30);

    private TestingServer server;
    private final String basePath = ZooKeeperTesting.randomBasePath();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void startServer() throws Exception {
        server = ZooKeeperTesting.server();
    }

    @AfterEach
    void stopServer() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        server.close();
    }

    private LockManager manager(int sessionTimeoutMs) throws Exception {
        CuratorFramework client = ZooKeeperTesting.client(server.getConnectString(), sessionTimeoutMs);
        LockManager manager = LockManager.builder(ZooKeeperLockProvider.builder(client).basePath(basePath).closeClient(true).build())
                .transactions(TransactionSupport.none()).build();
        toClose.add(manager);
        return manager;
    }

    @Test
    void holderIsInDoubtWhileDisconnectedAndHoldsAgainOnceItsNodeIsReadBack() throws Exception {
        LockManager locks = manager(20_000);
        LockHandle held = locks.acquire("doubt");
        long token = held.fencingToken();
        CountDownLatch lost = new CountDownLatch(1);
        held.onLost(lost::countDown);

        server.stop();
        await().atMost(AWAIT).until(() -> !held.isValid());

        server.restart();
        await().atMost(AWAIT).until(held::isValid);

        assertThat(lost.getCount()).as("the session survived: not lost").isEqualTo(1);
        assertThat(held.fencingToken()).isEqualTo(token);
        assertThat(locks.inspect("doubt")).get().satisfies(info -> assertThat(info.fencingToken()).isEqualTo(token));
        held.release();
        assertThat(locks.inspect("doubt")).isEmpty();
    }

    @Test
    void holderLosesTheLockWhenTheSessionTimesOutWhileDisconnected() throws Exception {
        LockManager holder = manager(1_500);
        LockHandle held = holder.acquire("expired");
        CountDownLatch lost = new CountDownLatch(1);
        held.onLost(lost::countDown);

        server.stop();
        await().atMost(AWAIT).until(() -> !held.isValid());
        assertThat(lost.await(AWAIT.toSeconds(), TimeUnit.SECONDS)).as("told while the server is still down").isTrue();

        server.restart();
        LockManager next = manager(ZooKeeperTesting.SESSION_TIMEOUT_MS);
        try (LockHandle taken = next.acquire("expired", LockOptions.defaults().withWait(AWAIT))) {
            assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
        }
        assertThat(held.isValid()).isFalse();
        assertThatThrownBy(held::release).isInstanceOf(LockNotHeldException.class);
    }
}
