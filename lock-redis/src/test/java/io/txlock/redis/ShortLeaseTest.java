package io.txlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.LockBackendException;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;

/**
 * An empty {@code tryAcquire} means another holder has the lock: never a lease too short for Redis's answer to come
 * within it. Such a lease is refused; a grant that comes too late for its lease is a backend failure.
 */
class ShortLeaseTest {

    private static final int TRIES = 300;

    private final String prefix = SharedRedis.randomPrefix();
    private LockManager locks;

    @BeforeEach
    void start() {
        locks = LockManager.builder(SharedRedis.provider(prefix)).build();
    }

    @AfterEach
    void stop() {
        locks.close();
        try (var client = SharedRedis.client()) {
            SharedRedis.deleteKeys(client, prefix);
        }
    }

    @Test
    void leasesShorterThanTheMinimumAreRefusedNeverAnsweredAsHeld() {
        for (Duration lease : new Duration[] {Duration.ofMillis(1), Duration.ofMillis(2), RedisLockProvider.MIN_LEASE.minusNanos(1)}) {
            for (int i = 0; i < TRIES; i++) {
                String name = "free:" + lease.toNanos() + ":" + i;
                LockOptions options = LockOptions.defaults().withScope(LockScope.LEASE).withLease(lease);
                assertThatThrownBy(() -> locks.tryAcquire(name, options).ifPresent(LockHandle::release))
                        .as("try %d of a free lock with a lease of %s", i, lease)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("at least " + RedisLockProvider.MIN_LEASE.toMillis() + " ms");
            }
        }
    }

    @Test
    void aFreeLockWithTheShortestLeaseIsGrantedEveryTime() {
        LockOptions options = LockOptions.defaults().withScope(LockScope.LEASE).withLease(RedisLockProvider.MIN_LEASE);
        for (int i = 0; i < TRIES; i++) {
            Optional<LockHandle> handle = locks.tryAcquire("free:" + i, options);
            assertThat(handle).as("try %d of a free lock with a lease of %s", i, RedisLockProvider.MIN_LEASE).isPresent();
            handle.get().release();
        }
    }

    @Test
    void aGrantWhoseAnswerComesAfterItsLeaseIsABackendFailureNotHeld() throws Exception {
        DelayingProxy proxy = new DelayingProxy(SharedRedis.address());
        LockManager slowed = LockManager.builder(RedisLockProvider.builder(proxy.address(),
                DefaultJedisClientConfig.builder().connectionTimeoutMillis(2_000).socketTimeoutMillis(20_000).build())
                .keyPrefix(prefix).build()).build();
        try {
            slowed.inspect("free"); // connected before the replies slow down
            proxy.delayReplies(RedisLockProvider.MIN_LEASE.multipliedBy(2));
            assertThatThrownBy(() -> slowed.tryAcquire("free", LockOptions.defaults().withScope(LockScope.LEASE)
                    .withLease(RedisLockProvider.MIN_LEASE)))
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("longer than");
        } finally {
            proxy.close();
            slowed.close();
        }
        assertThat(locks.tryAcquire("free", LockOptions.defaults().withScope(LockScope.LEASE).withWait(Duration.ofSeconds(30))))
                .as("free again: the late grant was undone, or expired").isPresent();
    }
}
