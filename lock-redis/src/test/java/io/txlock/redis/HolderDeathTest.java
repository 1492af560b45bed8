package io.txlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.spi.TransactionSupport;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/** A holder JVM killed with kill -9: its lock is free once its lease runs out, with a higher token. */
class HolderDeathTest {

    private static final String PREFIX = SharedRedis.randomPrefix();
    private static final Duration LEASE = Duration.ofSeconds(2);

    @AfterAll
    static void cleanUp() {
        try (RedisClient redis = SharedRedis.client()) {
            SharedRedis.deleteKeys(redis, PREFIX);
        }
    }

    @Test
    void aKilledHoldersLockIsFreeAfterItsLeaseWithAHigherToken() throws Exception {
        String config = RedisProviderFactory.config(List.of(SharedRedis.address()), PREFIX);
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), LockHolderProcess.class.getName(),
                RedisProviderFactory.class.getName(), config, "job", Long.toString(LEASE.toMillis()))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (LockManager locks = LockManager.builder(SharedRedis.provider(PREFIX)).transactions(TransactionSupport.none()).build()) {
            long childToken = heldToken(child);
            assertThat(locks.tryAcquire("job")).as("held by the child").isEmpty();
            assertThat(locks.inspect("job").orElseThrow().fencingToken()).isEqualTo(childToken);

            child.destroyForcibly();
            assertThat(child.waitFor(20, TimeUnit.SECONDS)).isTrue();
            long killed = System.nanoTime();
            try (LockHandle next = locks.acquire("job", LockOptions.defaults().withWait(LEASE.plusSeconds(10)))) {
                long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
                assertThat(waitedMillis).as("free within the lease (plus slack for a loaded machine)")
                        .isLessThanOrEqualTo(LEASE.plusSeconds(3).toMillis());
                assertThat(next.fencingToken()).isGreaterThan(childToken);
            }
        } finally {
            child.destroyForcibly();
        }
    }

    private static long heldToken(Process child) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        String line = CompletableFuture.supplyAsync(() -> {
            try {
                String l;
                while ((l = out.readLine()) != null) {
                    if (l.startsWith("HELD ")) {
                        return l;
                    }
                }
                return null;
            } catch (java.io.IOException e) {
                return null;
            }
        }).get(60, TimeUnit.SECONDS);
        assertThat(line).as("child JVM took the lock").isNotNull();
        return Long.parseLong(line.substring(5).trim());
    }
}
