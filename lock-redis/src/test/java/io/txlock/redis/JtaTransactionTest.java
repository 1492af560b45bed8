package io.txlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.arjuna.ats.arjuna.common.ObjectStoreEnvironmentBean;
import com.arjuna.ats.internal.jta.transaction.arjunacore.TransactionSynchronizationRegistryImple;
import com.arjuna.common.internal.util.propertyservice.BeanPopulator;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockNotHeldException;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.jta.JtaTransactionSupport;
import jakarta.transaction.RollbackException;
import jakarta.transaction.TransactionManager;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/** TRANSACTION-scoped Redis locks inside JTA transactions of a standalone Narayana. */
class JtaTransactionTest {

    private static final String PREFIX = SharedRedis.randomPrefix();
    private static TransactionManager tm;
    private static RedisClient redis;
    private LockManager locks;

    @BeforeAll
    static void startNarayana() {
        String store = SharedRedis.buildDir().resolve("narayana").toAbsolutePath().toString();
        BeanPopulator.getDefaultInstance(ObjectStoreEnvironmentBean.class).setObjectStoreDir(store);
        BeanPopulator.getNamedInstance(ObjectStoreEnvironmentBean.class, "communicationStore").setObjectStoreDir(store);
        BeanPopulator.getNamedInstance(ObjectStoreEnvironmentBean.class, "stateStore").setObjectStoreDir(store);
        tm = com.arjuna.ats.jta.TransactionManager.transactionManager();
        redis = SharedRedis.client();
    }

    @AfterAll
    static void cleanUp() {
        SharedRedis.deleteKeys(redis, PREFIX);
        redis.close();
    }

    @BeforeEach
    void createManager() {
        locks = LockManager.builder(SharedRedis.provider(PREFIX))
                .transactions(JtaTransactionSupport.of(new TransactionSynchronizationRegistryImple())).build();
    }

    @AfterEach
    void closeManager() throws Exception {
        if (tm.getTransaction() != null) {
            tm.rollback();
        }
        locks.close();
    }

    private boolean held(String name) {
        return redis.exists(PREFIX + "lock:" + name);
    }

    @Test
    void aTransactionLockIsReleasedAfterCommit() throws Exception {
        tm.begin();
        LockHandle handle = locks.acquire("committed", LockOptions.defaults().withScope(LockScope.TRANSACTION));
        assertThat(handle.scope()).isEqualTo(LockScope.TRANSACTION);
        handle.close();
        assertThat(held("committed")).as("closing the handle keeps it until the transaction ends").isTrue();
        tm.commit();
        assertThat(held("committed")).isFalse();
        assertThat(handle.isValid()).isFalse();
    }

    @Test
    void aTransactionLockIsReleasedAfterRollback() throws Exception {
        tm.begin();
        LockHandle handle = locks.acquire("rolled-back");
        assertThat(handle.scope()).as("AUTO inside a transaction").isEqualTo(LockScope.TRANSACTION);
        assertThat(held("rolled-back")).isTrue();
        tm.rollback();
        assertThat(held("rolled-back")).isFalse();
    }

    /** A transaction on another node waits for the commit, handed the lock by the release after the commit. */
    @Test
    void anotherTransactionWaitsForTheCommit() throws Exception {
        tm.begin();
        LockHandle first = locks.acquire("serial");
        try (LockManager otherNode = LockManager.builder(SharedRedis.provider(PREFIX))
                .transactions(JtaTransactionSupport.of(new TransactionSynchronizationRegistryImple())).build()) {
            CompletableFuture<Long> other = CompletableFuture.supplyAsync(() -> {
                try {
                    tm.begin();
                    try (LockHandle next = otherNode.acquire("serial", LockOptions.defaults().withWait(Duration.ofSeconds(20)))) {
                        return next.fencingToken();
                    } finally {
                        tm.commit();
                    }
                } catch (Exception e) {
                    throw new CompletionException(e);
                }
            });
            await("the other transaction queued for the lock").atMost(Duration.ofSeconds(10))
                    .until(() -> redis.exists(PREFIX + "queue:serial"));
            assertThat(other).as("still held by the open transaction").isNotDone();
            tm.commit();
            assertThat(other.get(20, TimeUnit.SECONDS)).isGreaterThan(first.fencingToken());
        }
        assertThat(held("serial")).isFalse();
    }

    @Test
    void aLostTransactionLockMarksTheTransactionRollbackOnly() throws Exception {
        tm.begin();
        LockHandle handle = locks.acquire("lost-in-tx", LockOptions.defaults().withLease(Duration.ofMillis(600)));
        CountDownLatch lost = new CountDownLatch(1);
        handle.onLost(lost::countDown);
        redis.del(PREFIX + "lock:lost-in-tx");
        assertThat(lost.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(handle.isValid()).isFalse();
        assertThatThrownBy(handle::release).isInstanceOf(LockNotHeldException.class);
        assertThatThrownBy(tm::commit).as("work done under a lost lock must not commit").isInstanceOf(RollbackException.class);
    }
}
