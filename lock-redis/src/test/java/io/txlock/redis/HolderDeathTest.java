package io.txlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockNotHeldException;
import io.txlock.LockOptions;
import io.txlock.spi.TransactionSupport;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * A holder JVM killed with kill -9, on a private server: its lock is free once its lease runs out, with a higher
 * token, and the dead holder's grant can no longer renew or release it.
 */
class HolderDeathTest {

    private static final String PREFIX = "holder-death:";
    private static final Duration LEASE = Duration.ofSeconds(2);
    /** How late the lock may come free on a loaded machine. */
    private static final Duration SLACK = Duration.ofSeconds(3);

    private RedisServer server;

    @BeforeEach
    void startServer() {
        server = RedisServer.start();
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    private RedisLockProvider provider() {
        return RedisLockProvider.builder(server.address(), SharedRedis.config()).keyPrefix(PREFIX).build();
    }

    @Test
    void aKilledHoldersLockIsFreeAfterItsLeaseWithAHigherTokenAndItsLateRenewalAndReleaseAreRefused() throws Exception {
        String config = RedisProviderFactory.config(List.of(server.address()), PREFIX);
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), LockHolderProcess.class.getName(),
                RedisProviderFactory.class.getName(), config, "job", Long.toString(LEASE.toMillis()))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (LockManager locks = LockManager.builder(provider()).transactions(TransactionSupport.none()).build();
                RedisLockProvider another = provider()) {
            long childToken = heldToken(child);
            assertThat(locks.tryAcquire("job")).as("held by the child").isEmpty();
            assertThat(locks.inspect("job").orElseThrow().fencingToken()).isEqualTo(childToken);
            String childsValue = storedValue();
            assertThat(childsValue).as("the child's key").isNotNull();

            child.destroyForcibly();
            assertThat(child.waitFor(20, TimeUnit.SECONDS)).isTrue();
            try (LockHandle next = locks.acquire("job", LockOptions.defaults().withWait(LEASE.plus(SLACK)))) {
                assertThat(next.fencingToken()).isGreaterThan(childToken);

                // the dead holder's grant, rebuilt from the token it reported and the claim its key held
                BitSet onTheOneMaster = new BitSet();
                onTheOneMaster.set(0);
                RedisGrant deadGrant = new RedisGrant("job", new KeySpace(PREFIX).scriptKeys("job"), childToken, LockValue.claimOf(childsValue),
                        onTheOneMaster);
                String nextsValue = storedValue();
                assertThat(nextsValue).as("the new holder's key").isNotNull().isNotEqualTo(childsValue);

                assertThatThrownBy(() -> another.renew(deadGrant, LEASE)).as("the dead holder's late renewal")
                        .isInstanceOf(LockNotHeldException.class);
                assertThat(storedValue()).as("the key after the dead holder's refused renewal").isEqualTo(nextsValue);
                assertThat(locks.inspect("job").orElseThrow().fencingToken()).as("still the new holder's after the refused renewal")
                        .isEqualTo(next.fencingToken());

                assertThatThrownBy(() -> another.release(deadGrant)).as("the dead holder's late release")
                        .isInstanceOf(LockNotHeldException.class);
                assertThat(storedValue()).as("the key after the dead holder's refused release").isEqualTo(nextsValue);
                assertThat(locks.inspect("job").orElseThrow().fencingToken()).as("still the new holder's after the refused release")
                        .isEqualTo(next.fencingToken());
                assertThat(next.isValid()).as("the new holder's handle").isTrue();
            }
        } finally {
            child.destroyForcibly();
        }
    }

    /** @return the value of the lock's key, read directly from the server */
    private String storedValue() {
        try (Jedis jedis = new Jedis(server.address(), SharedRedis.config())) {
            return jedis.get(PREFIX + "lock:job");
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
