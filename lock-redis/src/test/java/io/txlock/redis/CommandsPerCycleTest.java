package io.txlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * What an uncontended lock + unlock cycle asks of the server, counted by a private server's {@code INFO commandstats}
 * (a script's EVALSHA and every command it calls): the acquire script reads the clock (the token), the lock, the
 * queue's head and the counter, and writes the lock and the counter; the release script reads the lock, finds the
 * queue empty and deletes the lock, without reading the clock. (Reading lock and counter in one MGET would save one
 * more, but MGET is not among the commands the README's ACL grants.)
 */
class CommandsPerCycleTest {

    private static final int CYCLES = 20;
    private static final Map<String, Long> ONE_CYCLE = Map.of(
            "evalsha", 2L, "time", 1L, "get", 3L, "lindex", 1L, "set", 2L, "lpop", 1L, "del", 1L);

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
    void aCycleThatMayWaitSendsElevenCommandsAndNoneThatWaits() {
        LockOptions mayWait = LockOptions.defaults().withScope(LockScope.LEASE).withWait(Duration.ofSeconds(30))
                .withLease(Duration.ofSeconds(10));
        assertThat(commandsOf(() -> locks.acquire("job", mayWait).release())).isEqualTo(perCycles());
    }

    @Test
    void aCycleThatMayNotWaitSendsTheSameElevenCommands() {
        LockOptions noWait = LockOptions.defaults().withScope(LockScope.LEASE).withLease(Duration.ofSeconds(10));
        assertThat(commandsOf(() -> locks.tryAcquire("job", noWait).orElseThrow().release())).isEqualTo(perCycles());
    }

    private static Map<String, Long> perCycles() {
        Map<String, Long> expected = new TreeMap<>();
        ONE_CYCLE.forEach((command, calls) -> expected.put(command, calls * CYCLES));
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
                    if (!command.equals("config|resetstat") && !command.equals("info")) {
                        calls.put(command, Long.parseLong(line.substring(from, line.indexOf(',', from))));
                    }
                }
            }
            return calls;
        }
    }
}
