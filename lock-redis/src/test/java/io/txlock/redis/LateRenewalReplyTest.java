package io.txlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.LockException;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockNotHeldException;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;

/**
 * {@code extend(shorter)} reaches Redis, which applies the short expiry at once, but its reply comes later than the
 * short lease: from the moment it is sent the holder must count on the shorter lease, since it may be in force.
 */
class LateRenewalReplyTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final Duration SHORT_LEASE = Duration.ofMillis(200);
    private static final Duration REPLY_DELAY = Duration.ofSeconds(3);

    private final String prefix = SharedRedis.randomPrefix();
    private DelayingProxy proxy;
    private LockManager slowed;
    private LockManager other;

    @BeforeEach
    void start() throws Exception {
        proxy = new DelayingProxy(SharedRedis.address());
        slowed = LockManager.builder(RedisLockProvider.builder(proxy.address(),
                DefaultJedisClientConfig.builder().connectionTimeoutMillis(2_000).socketTimeoutMillis(20_000).build())
                .keyPrefix(prefix).build()).build();
        other = LockManager.builder(SharedRedis.provider(prefix)).build();
    }

    @AfterEach
    void stop() throws Exception {
        other.close();
        proxy.close();
        slowed.close();
        try (var client = SharedRedis.client()) {
            SharedRedis.deleteKeys(client, prefix);
        }
    }

    @Test
    void aShorteningExtendWhoseReplyComesAfterTheShortLeaseLeavesTheHandleInvalidBeforeAnotherIsGranted() throws Exception {
        String name = "invoice:17";
        LockHandle held = slowed.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE).withLease(PATIENCE));
        proxy.delayReplies(REPLY_DELAY);
        CompletableFuture<Void> extending = CompletableFuture.runAsync(() -> held.extend(SHORT_LEASE));

        try (LockHandle taken = other.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE).withWait(PATIENCE))) {
            assertThat(held.isValid()).as("the first handle, once Redis let another manager in").isFalse();
            assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
            assertThatThrownBy(() -> extending.get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                    .as("the extend whose reply came too late").hasCauseInstanceOf(LockException.class);
            assertThat(held.isValid()).isFalse();
            assertThatThrownBy(held::release).isInstanceOf(LockNotHeldException.class);
            assertThat(taken.isValid()).isTrue();
        }
    }
}
