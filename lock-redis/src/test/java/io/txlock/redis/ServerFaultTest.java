package io.txlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.LockBackendException;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockNotHeldException;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.spi.TransactionSupport;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;

/** A single master, private to each test, killed with kill -9 and restarted without persistence. */
class ServerFaultTest {

    private static final JedisClientConfig FAST_FAILING =
            DefaultJedisClientConfig.builder().connectionTimeoutMillis(500).socketTimeoutMillis(1_000).build();
    private static final String PREFIX = "faults:";

    private RedisServer server;

    @BeforeEach
    void startServer() {
        server = RedisServer.start();
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    private LockManager manager() {
        return LockManager.builder(RedisLockProvider.builder(server.address(), FAST_FAILING).keyPrefix(PREFIX).build())
                .transactions(TransactionSupport.none()).build();
    }

    private String get(String key) {
        try (Jedis jedis = new Jedis(server.address(), FAST_FAILING)) {
            return jedis.get(key);
        }
    }

    @Test
    void tokensKeepGrowingWhenTheServerRestartsWithAnEmptyMemory() {
        try (LockManager locks = manager()) {
            long before = 0;
            for (int i = 0; i < 3; i++) {
                try (LockHandle h = locks.acquire("restarted")) {
                    before = h.fencingToken();
                }
            }
            server.kill();
            server.restart();
            assertThat(get(PREFIX + "fence")).as("the counter died with the server").isNull();
            try (LockHandle after = locks.acquire("restarted")) {
                assertThat(after.fencingToken()).isGreaterThan(before);
            }
        }
    }

    @Test
    void aHolderIsToldWhenTheServerStaysUnreachablePastItsLease() throws Exception {
        try (LockManager holder = manager(); LockManager next = manager()) {
            LockHandle handle = holder.acquire("orphaned", LockOptions.defaults().withScope(LockScope.LEASE)
                    .withLease(Duration.ofMillis(1_500)));
            CountDownLatch lost = new CountDownLatch(1);
            handle.onLost(lost::countDown);
            server.kill();
            assertThat(lost.await(15, TimeUnit.SECONDS)).as("lease-loss callback ran").isTrue();
            assertThat(handle.isValid()).isFalse();
            assertThatThrownBy(handle::release).isInstanceOf(LockNotHeldException.class);
            assertThatThrownBy(() -> next.tryAcquire("orphaned")).isInstanceOf(LockBackendException.class);

            server.restart();
            try (LockHandle taken = next.acquire("orphaned")) {
                assertThat(taken.fencingToken()).isGreaterThan(handle.fencingToken());
            }
        }
    }

    @Test
    void releaseHintsResumeAfterTheServerComesBack() throws Exception {
        try (RedisLockProvider waiting = RedisLockProvider.builder(server.address(), FAST_FAILING).keyPrefix(PREFIX).build();
                LockManager releasing = manager()) {
            Hints hints = new Hints();
            try (AutoCloseable subscription = waiting.subscribe("hinted", hints).orElseThrow()) {
                hints.awaitConfirmed();
                int beforeRestart = hints.count();
                server.kill();
                server.restart();
                hints.awaitMoreThan(beforeRestart, "waiters woken after the reconnect, releases may have been missed");
                int afterReconnect = hints.count();
                releasing.acquire("hinted").release();
                hints.awaitMoreThan(afterReconnect, "hint of a release after the reconnect");
            }
        }
    }
}
