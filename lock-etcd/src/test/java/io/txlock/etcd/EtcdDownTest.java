package io.txlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.txlock.LockBackendException;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.servers.ServerProcess;
import io.txlock.spi.TransactionSupport;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The only etcd member is killed while a lock is held: the holder cannot renew, so its lock is lost when the lease
 * runs out on its own clock; every call fails with LockBackendException (never "not granted"); once etcd is back the
 * lock is granted again, with a higher token.
 */
class EtcdDownTest {

    private static final Duration LEASE = Duration.ofSeconds(2);

    private EtcdCluster etcd;
    private LockManager holder;
    private LockManager other;

    @BeforeEach
    void start() {
        etcd = EtcdCluster.start(1, 50);
        String config = EtcdProviderFactory.config(etcd.endpoints(), "/down-" + UUID.randomUUID().toString().substring(0, 8) + "/");
        holder = LockManager.builder(new EtcdProviderFactory().create(config)).transactions(TransactionSupport.none()).build();
        other = LockManager.builder(new EtcdProviderFactory().create(config)).transactions(TransactionSupport.none()).build();
    }

    @AfterEach
    void stop() {
        holder.close();
        other.close();
        etcd.close();
    }

    @Test
    void aHolderThatCannotRenewLosesItsLockAndCallsFailWithBackendException() throws Exception {
        LockHandle held = holder.acquire("down", LockOptions.defaults().withScope(LockScope.LEASE).withLease(LEASE));
        CountDownLatch lost = new CountDownLatch(1);
        held.onLost(lost::countDown);
        ServerProcess member = etcd.members().get(0);
        member.crash();

        assertThat(lost.await(LEASE.toSeconds() + 30, TimeUnit.SECONDS)).as("onLost after etcd went away").isTrue();
        assertThat(held.isValid()).isFalse();
        assertThatThrownBy(() -> other.tryAcquire("down")).isInstanceOf(LockBackendException.class);
        assertThatThrownBy(() -> other.acquire("down", LockOptions.defaults().withWait(Duration.ofMillis(500))))
                .isInstanceOf(LockBackendException.class);
        assertThatThrownBy(() -> other.inspect("down")).isInstanceOf(LockBackendException.class);

        member.launch();
        member.awaitReady();
        LockHandle next = await().atMost(Duration.ofSeconds(60)).ignoreExceptionsInstanceOf(LockBackendException.class)
                .until(() -> other.acquire("down", LockOptions.defaults().withWait(Duration.ofSeconds(30))), h -> h != null);
        assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        next.release();
    }
}
