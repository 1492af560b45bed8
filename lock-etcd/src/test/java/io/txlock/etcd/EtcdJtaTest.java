package io.txlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.arjuna.ats.internal.jta.transaction.arjunacore.TransactionSynchronizationRegistryImple;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
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
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** TRANSACTION-scoped etcd locks inside JTA transactions of Narayana, standalone. */
class EtcdJtaTest {

    private static final Duration AWAIT = Duration.ofSeconds(20);
    private static final String PREFIX = "/jta-" + UUID.randomUUID().toString().substring(0, 8) + "/";

    private static EtcdCluster etcd;
    private static TransactionManager transactions;
    private static LockManager inTransaction;
    private static LockManager outsider;
    private static Client admin;

    @BeforeAll
    static void start() {
        etcd = EtcdCluster.start(1, 50);
        transactions = com.arjuna.ats.jta.TransactionManager.transactionManager();
        String config = EtcdProviderFactory.config(etcd.endpoints(), PREFIX);
        inTransaction = LockManager.builder(new EtcdProviderFactory().create(config))
                .transactions(JtaTransactionSupport.of(new TransactionSynchronizationRegistryImple()))
                .build();
        outsider = LockManager.builder(new EtcdProviderFactory().create(config)).transactions(TransactionSupport.none()).build();
        admin = etcd.client();
    }

    @AfterAll
    static void stop() {
        inTransaction.close();
        outsider.close();
        admin.close();
        etcd.close();
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
        assertThat(outsider.tryAcquire("tx-commit")).isPresent().get().satisfies(h -> {
            assertThat(h.fencingToken()).isGreaterThan(handle.fencingToken());
            h.release();
        });
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
    void losingTheLeaseDoomsTheTransaction() throws Exception {
        transactions.begin();
        LockHandle handle = inTransaction.acquire("tx-lost",
                LockOptions.defaults().withScope(LockScope.TRANSACTION).withLease(Duration.ofSeconds(1)));

        List<KeyValue> keys = admin.getKVClient().get(EtcdKeys.bytes(PREFIX + "tx-lost/"),
                GetOption.builder().isPrefix(true).build()).get(10, TimeUnit.SECONDS).getKvs();
        assertThat(keys).as("the holder's key").hasSize(1);
        admin.getLeaseClient().revoke(keys.get(0).getLease()).get(10, TimeUnit.SECONDS);
        await().atMost(AWAIT).until(() -> !handle.isValid());

        assertThatThrownBy(transactions::commit).as("a transaction whose lock was lost must not commit")
                .isInstanceOf(RollbackException.class);
        assertThat(outsider.tryAcquire("tx-lost", AWAIT)).isPresent().get().satisfies(h -> {
            assertThat(h.fencingToken()).isGreaterThan(handle.fencingToken());
            h.release();
        });
    }
}
