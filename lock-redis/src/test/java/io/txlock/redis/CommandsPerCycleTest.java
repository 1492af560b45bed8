package io.txlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * What an uncontended lock + unlock cycle and a handoff ask of the server, counted by a private server's
 * {@code INFO commandstats} (a script's EVALSHA and every command it calls). Uncontended, the acquire script reads the
 * clock (the token), the lock and the queue's head, swaps the counter for the clock ({@code SET … GET}) and writes the
 * lock; the release script reads the lock, finds the queue empty and deletes the lock, without reading the clock.
 * A handoff: the release script reads the lock, pops the waiter's place, reads the clock, swaps the counter, writes
 * the lock and pushes it on the waiter's list with the lease as its expiry; the waiter's {@code BLPOP} takes it; the
 * former holder, asking again, reads the clock and the lock, queues its place, renews the queue's expiry and reads
 * the holder's remaining lease. (Reading lock and counter in one MGET would save one more, but MGET is not among the
 * commands the README's ACL grants.)
 */
class CommandsPerCycleTest {

    private static final int CYCLES = 20;
    private static final Map<String, Long> ONE_CYCLE = Map.of(
            "evalsha", 2L, "time", 1L, "get", 2L, "lindex", 1L, "set", 2L, "lpop", 1L, "del", 1L);
    private static final Map<String, Long> ONE_HAND_OFF = Map.of(
            "evalsha", 2L, "time", 2L, "get", 2L, "lpop", 1L, "set", 2L, "lpush", 1L, "pexpire", 2L, "blpop", 1L,
            "rpush", 1L, "pttl", 1L);

    private RedisServer server;
    private LockManager locks;

    @BeforeEach
    void start() {
        server = RedisServer.start();
        locks = LockManager.builder(RedisLockProvider.builder(server.address(), SharedRedis.config()).keyPrefix("cycle:").build())
                .build();
    }

    @AfterEach
    void stop() {
        locks.close();
        server.close();
    }

    @Test
    void aCycleThatMayWaitSendsTenCommandsAndNoneThatWaits() {
        LockOptions mayWait = LockOptions.defaults().withScope(LockScope.LEASE).withWait(Duration.ofSeconds(30))
                .withLease(Duration.ofSeconds(10));
        assertThat(commandsOf(() -> locks.acquire("job", mayWait).release())).isEqualTo(times(ONE_CYCLE));
    }

    @Test
    void aCycleThatMayNotWaitSendsTheSameTenCommands() {
        LockOptions noWait = LockOptions.defaults().withScope(LockScope.LEASE).withLease(Duration.ofSeconds(10));
        assertThat(commandsOf(() -> locks.tryAcquire("job", noWait).orElseThrow().release())).isEqualTo(times(ONE_CYCLE));
    }

    /**
     * Two managers take turns on one name, each handing it to the other: the waiter queues and blocks, then the holder
     * releases and the waiter is handed the lock on its list.
     */
    @Test
    void aHandOffSendsFifteenCommands() throws Exception {
        LockOptions mayWait = LockOptions.defaults().withScope(LockScope.LEASE).withWait(Duration.ofSeconds(30))
                .withLease(Duration.ofSeconds(10));
        try (LockManager other = LockManager.builder(RedisLockProvider.builder(server.address(), SharedRedis.config())
                .keyPrefix("cycle:").build()).build()) {
            LockManager[] managers = {locks, other};
            LockHandle[] held = {locks.acquire("turns", mayWait)};
            int[] turn = {0};
            Runnable handOff = () -> {
                try (Jedis jedis = new Jedis(server.address(), SharedRedis.config())) {
                    turn[0]++;
                    CompletableFuture<LockHandle> next = managers[turn[0] % 2].acquireAsync("turns", mayWait).toCompletableFuture();
                    await("the waiter blocked").atMost(Duration.ofSeconds(30))
                            .until(() -> jedis.clientList().lines().anyMatch(l -> l.contains(" flags=b ")));
                    held[0].release();
                    held[0] = next.get(30, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            };
            assertThat(commandsOf(handOff)).isEqualTo(times(ONE_HAND_OFF));
            held[0].release();
        }
    }

    private static Map<String, Long> times(Map<String, Long> one) {
        Map<String, Long> expected = new TreeMap<>();
        one.forEach((command, calls) -> expected.put(command, calls * CYCLES));
        return expected;
    }

    /** @return the calls of each command the server ran for {@link #CYCLES} runs of {@code cycle}, after one to load the scripts */
    private Map<String, Long> commandsOf(Runnable cycle) {
        cycle.run();
        try (Jedis jedis = new Jedis(server.address(), SharedRedis.config())) {
            jedis.configResetStat();
            for (int i = 0; i < CYCLES; i++) {
                cycle.run();
            }
            Map<String, Long> calls = new TreeMap<>();
            for (String line : jedis.info("commandstats").split("\r?\n")) {
                if (line.startsWith("cmdstat_")) {
                    String command = line.substring("cmdstat_".length(), line.indexOf(':'));
                    int from = line.indexOf("calls=") + "calls=".length();
                    if (!command.equals("config|resetstat") && !command.equals("info") && !command.startsWith("client|")
                            && !command.equals("hello") && !command.equals("auth")) {
                        calls.put(command, Long.parseLong(line.substring(from, line.indexOf(',', from))));
                    }
                }
            }
            return calls;
        }
    }
}
