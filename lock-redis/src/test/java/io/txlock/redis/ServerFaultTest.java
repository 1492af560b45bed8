package io.txlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.txlock.LockBackendException;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockNotHeldException;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.spi.TransactionSupport;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
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

    /**
     * Hand-offs reach a waiter's list again once the server is back (its blocked connections broken by the restart
     * are replaced).
     */
    @Test
    void handOffsResumeAfterTheServerComesBack() throws Exception {
        RedisLockProvider waitingProvider = RedisLockProvider.builder(server.address(), FAST_FAILING).keyPrefix(PREFIX)
                .recheck(Duration.ofMinutes(1)).build();
        try (LockManager waiting = LockManager.builder(waitingProvider).transactions(TransactionSupport.none()).build();
                LockManager releasing = manager()) {
            handOff(releasing, waiting, waitingProvider, 1);
            server.kill();
            server.restart();
            await("a hand-off heard over the reconnected subscription").atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                long before = waitingProvider.handOffsTaken();
                handOff(releasing, waiting, waitingProvider, before + 1);
            });
        }
    }

    /**
     * A server that stops answering (SIGSTOP) while a waiter blocks in its BLPOP fails that wait as it fails any
     * command, by the socket timeout stretched by the BLPOP's own: the acquire ends with a backend failure while the
     * server is still stopped, instead of hanging until it continues.
     */
    @Test
    void aWaiterBlockedOnAStoppedServerFailsInsteadOfHanging() throws Exception {
        try (LockManager holding = manager(); LockManager waiting = manager()) {
            LockHandle held = holding.acquire("stopped");
            CompletableFuture<LockHandle> next = waiting.acquireAsync("stopped", LockOptions.defaults()
                    .withWait(Duration.ofMinutes(2))).toCompletableFuture();
            await("queued").atMost(Duration.ofSeconds(20)).until(() -> {
                try (Jedis jedis = new Jedis(server.address(), FAST_FAILING)) {
                    return jedis.exists(PREFIX + "queue:stopped");
                }
            });
            Thread pausing = new Thread(() -> {
                try {
                    server.pause(Duration.ofSeconds(20));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "pausing-redis");
            pausing.start();
            assertThatThrownBy(() -> next.get(60, TimeUnit.SECONDS)).hasCauseInstanceOf(LockBackendException.class);
            assertThat(pausing.isAlive()).as("the server still stopped when the waiter failed").isTrue();
            pausing.join();
            held.release();
        }
    }

    /** The waiting manager queues while the other holds; the release hands it the lock on its list. */
    private void handOff(LockManager releasing, LockManager waiting, RedisLockProvider waitingProvider, long expectedHandOffs)
            throws Exception {
        LockHandle held = releasing.acquire("handed");
        CompletableFuture<LockHandle> next = waiting.acquireAsync("handed", LockOptions.defaults().withWait(Duration.ofSeconds(20)))
                .toCompletableFuture();
        await("queued").atMost(Duration.ofSeconds(20)).until(() -> {
            try (Jedis jedis = new Jedis(server.address(), FAST_FAILING)) {
                return jedis.exists(PREFIX + "queue:handed");
            }
        });
        held.release();
        next.get(30, TimeUnit.SECONDS).release();
        assertThat(waitingProvider.handOffsTaken()).as("grants taken from the waiter's list").isEqualTo(expectedHandOffs);
    }
}
