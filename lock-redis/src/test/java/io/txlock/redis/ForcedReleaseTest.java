package io.txlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txlock.LockAdmin;
import io.txlock.LockHandle;
import io.txlock.LockInfo;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.spi.TransactionSupport;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/** An operator's forced release on a single master hands the lock to the head of its queue, as a release does. */
class ForcedReleaseTest {

    private static final String PREFIX = SharedRedis.randomPrefix();
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final RedisClient redis = SharedRedis.client();
    private final RedisLockProvider adminProvider = SharedRedis.provider(PREFIX);
    private final LockManager holder = manager();
    private final LockManager waiter = manager();

    private static LockManager manager() {
        return LockManager.builder(SharedRedis.provider(PREFIX)).transactions(TransactionSupport.none()).build();
    }

    @AfterEach
    void closeAll() {
        holder.close();
        waiter.close();
        adminProvider.close();
        SharedRedis.deleteKeys(redis, PREFIX);
        redis.close();
    }

    @Test
    void theQueuesHeadHoldsTheLockOnceTheForcedReleaseReturns() throws Exception {
        String name = "forced";
        LockHandle held = holder.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE));
        CompletableFuture<LockHandle> next = CompletableFuture.supplyAsync(
                () -> waiter.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE).withWait(PATIENCE)));
        await("the waiter queued").atMost(PATIENCE).until(() -> redis.llen(PREFIX + "queue:" + name) == 1);

        LockInfo freed = LockAdmin.over(adminProvider).operator("test").forceRelease(name, held.fencingToken());

        assertThat(freed.fencingToken()).as("the token the operator freed").isEqualTo(held.fencingToken());
        assertThat(adminProvider.inspect(name)).as("'%s' right after its forced release", name)
                .hasValueSatisfying(now -> assertThat(now.fencingToken()).as("the token it is held with")
                        .isGreaterThan(held.fencingToken()));
        LockHandle handed = next.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(handed.fencingToken()).as("the waiter's token").isGreaterThan(held.fencingToken());
        handed.release();
    }
}
