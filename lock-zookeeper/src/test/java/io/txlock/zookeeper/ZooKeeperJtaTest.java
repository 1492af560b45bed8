package io.txlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.arjuna.ats.internal.jta.transaction.arjunacore.TransactionSynchronizationRegistryImple;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.jta.JtaTransactionSupport;
import io.txlock.spi.TransactionSupport;
import jakarta.transaction.RollbackException;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionManager;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.KillSession;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** TRANSACTION-scoped ZooKeeper locks inside JTA transactions of Narayana, standalone. */
class ZooKeeperJtaTest {

    private static final Duration AWAIT = Duration.ofSeconds(20);

    private static TestingServer server;
    private static TransactionManager transactions;
    private static CuratorFramework holderClient;
    private static LockManager inTransaction;
    private static LockManager outsider;

    @BeforeAll
    static void start() throws Exception {
        server = ZooKeeperTesting.server();
        String basePath = ZooKeeperTesting.randomBasePath();
        transactions = com.arjuna.ats.jta.TransactionManager.transactionManager();
        holderClient = ZooKeeperTesting.client(server.getConnectString());
        inTransaction = LockManager.builder(ZooKeeperLockProvider.builder(holderClient).basePath(basePath).closeClient(true).build())
                .transactions(JtaTransactionSupport.of(new TransactionSynchronizationRegistryImple()))
                .build();
        outsider = LockManager.builder(ZooKeeperLockProvider.builder(ZooKeeperTesting.client(server.getConnectString()))
                .basePath(basePath).closeClient(true).build()).transactions(TransactionSupport.none()).build();
    }

    @AfterAll
    static void stop() throws Exception {
        inTransaction.close();
        outsider.close();
        server.close();
    }

    @AfterEach
    void noTransactionLeftBehind() throws Exception {
        if (transactions.getStatus() != Status.STATUS_NO_TRANSACTION) {
            transactions.rollback();
        }
    }

    @Test
    void heldUntilCommitEvenAfterTheHandleIsClosed() throws Exception {
        transactions.begin();
        LockHandle handle = inTransaction.acquire("tx-commit", LockOptions.defaults().withScope(LockScope.TRANSACTION));
        assertThat(handle.scope()).isEqualTo(LockScope.TRANSACTION);
        handle.close();
        assertThat(outsider.tryAcquire("tx-commit")).as("held until the transaction ends").isEmpty();

        transactions.commit();

        assertThat(outsider.inspect("tx-commit")).as("released by commit").isEmpty();
        assertThat(outsider.tryAcquire("tx-commit")).isPresent().get().satisfies(LockHandle::release);
    }

    @Test
    void autoScopeInsideATransactionIsReleasedByRollback() throws Exception {
        transactions.begin();
        LockHandle handle = inTransaction.acquire("tx-rollback");
        assertThat(handle.scope()).isEqualTo(LockScope.TRANSACTION);
        assertThat(outsider.tryAcquire("tx-rollback")).isEmpty();

        transactions.rollback();

        assertThat(outsider.inspect("tx-rollback")).as("released by rollback").isEmpty();
        assertThat(outsider.tryAcquire("tx-rollback")).isPresent().get().satisfies(LockHandle::release);
    }

    @Test
    void losingTheSessionDoomsTheTransaction() throws Exception {
        transactions.begin();
        LockHandle handle = inTransaction.acquire("tx-lost", LockOptions.defaults().withScope(LockScope.TRANSACTION));

        KillSession.kill(holderClient.getZookeeperClient().getZooKeeper());
        await().atMost(AWAIT).until(() -> !handle.isValid());

        assertThatThrownBy(transactions::commit).as("a transaction whose lock was lost must not commit")
                .isInstanceOf(RollbackException.class);
        assertThat(outsider.tryAcquire("tx-lost", AWAIT)).isPresent().get().satisfies(LockHandle::release);
    }
}
