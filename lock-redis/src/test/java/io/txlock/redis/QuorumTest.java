package io.txlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.txlock.LockBackendException;
import io.txlock.LockHandle;
import io.txlock.LockInfo;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.spi.TransactionSupport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.args.ClientPauseMode;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.params.SetParams;

/** Quorum mode (Redlock) over three private masters, some of them killed and restarted without persistence. */
class QuorumTest {

    private static final JedisClientConfig FAST_FAILING =
            DefaultJedisClientConfig.builder().connectionTimeoutMillis(500).socketTimeoutMillis(1_000).build();
    /** Waits for a paused master rather than giving up on it. */
    private static final JedisClientConfig PATIENT =
            DefaultJedisClientConfig.builder().connectionTimeoutMillis(2_000).socketTimeoutMillis(30_000).build();
    private static final ProtocolCommand DEBUG = () -> "DEBUG".getBytes(StandardCharsets.US_ASCII);
    private static final List<RedisServer> servers = new ArrayList<>();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private String prefix;

    @BeforeAll
    static void startServers() {
        for (int i = 0; i < 3; i++) {
            servers.add(RedisServer.start("--enable-debug-command", "yes"));
        }
    }

    @AfterAll
    static void stopServers() {
        servers.forEach(RedisServer::close);
    }

    @AfterEach
    void closeAndRevive() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
        for (RedisServer server : servers) {
            if (!isUp(server)) {
                server.restart();
            }
        }
    }

    private LockManager manager() {
        return manager(FAST_FAILING, 0.01);
    }

    private LockManager manager(JedisClientConfig config, double clockDriftFactor) {
        if (prefix == null) {
            prefix = SharedRedis.randomPrefix();
        }
        LockManager m = LockManager.builder(RedisLockProvider.quorum(servers.stream().map(RedisServer::address).toList(), config)
                .keyPrefix(prefix).clockDriftFactor(clockDriftFactor).build()).transactions(TransactionSupport.none()).build();
        toClose.add(m);
        return m;
    }

    /**
     * Quorum mode keeps the release hints (a fair queue over several masters could split its order between them):
     * a waiter's subscription is confirmed on every master, and a release reaches it.
     */
    @Test
    void quorumWaitersAreWokenByReleaseHintsFromTheMasters() throws Exception {
        LockManager holder = manager();
        if (prefix == null) {
            prefix = SharedRedis.randomPrefix();
        }
        try (RedisLockProvider waiting = RedisLockProvider.quorum(servers.stream().map(RedisServer::address).toList(), FAST_FAILING)
                .keyPrefix(prefix).build()) {
            assertThat(waiting.blocksWhileWaiting()).isFalse();
            LockHandle held = holder.acquire("hinted");
            Hints hints = new Hints();
            try (AutoCloseable subscription = waiting.subscribe("hinted", hints).orElseThrow()) {
                await("confirmed on all three masters").atMost(Duration.ofSeconds(15)).until(() -> hints.count() >= 3);
                int confirmed = hints.count();
                held.release();
                hints.awaitMoreThan(confirmed, "release hint");
            }
        }
    }

    private static boolean isUp(RedisServer server) {
        try (Jedis jedis = new Jedis(server.address(), FAST_FAILING)) {
            return "PONG".equals(jedis.ping());
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static Jedis on(int server) {
        return new Jedis(servers.get(server).address(), FAST_FAILING);
    }

    /** @return the value of {@code key} on every master, null where it has none */
    private static List<String> valuesOf(String key) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < servers.size(); i++) {
            try (Jedis jedis = on(i)) {
                values.add(jedis.get(key));
            }
        }
        return values;
    }

    /** CLIENT PAUSE: the master queues every command for {@code pause}, then runs them; in effect once this returns. */
    private static void pause(int server, Duration pause) {
        try (Jedis jedis = on(server)) {
            jedis.clientPause(pause.toMillis(), ClientPauseMode.ALL);
        }
    }

    /**
     * DEBUG SLEEP: the master runs nothing for {@code sleep}, then everything it received meanwhile, also commands
     * of clients that gave up waiting (unlike CLIENT PAUSE, which drops those). Returns once it sleeps.
     */
    private static void sleep(int server, Duration sleep) {
        CompletableFuture.runAsync(() -> {
            try (Jedis jedis = new Jedis(servers.get(server).address(), PATIENT)) {
                jedis.sendCommand(DEBUG, "SLEEP", Double.toString(sleep.toMillis() / 1000.0));
            }
        });
        JedisClientConfig impatient = DefaultJedisClientConfig.builder().connectionTimeoutMillis(500).socketTimeoutMillis(200).build();
        await("master " + server + " asleep").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> {
            try (Jedis jedis = new Jedis(servers.get(server).address(), impatient)) {
                jedis.ping();
                return false;
            } catch (JedisConnectionException noAnswer) {
                return true;
            }
        });
    }

    @Test
    void grantedOnAMajorityWhileOneMasterIsDown() {
        LockManager locks = manager();
        servers.get(2).kill();
        try (LockHandle handle = locks.acquire("one-down")) {
            LockInfo info = locks.inspect("one-down").orElseThrow();
            assertThat(info.fencingToken()).isEqualTo(handle.fencingToken());
            assertThat(info.ownerId()).startsWith(locks.instanceId());
            for (int i = 0; i < 2; i++) {
                try (Jedis jedis = on(i)) {
                    assertThat(jedis.get(prefix + "lock:one-down")).startsWith(handle.fencingToken() + " ");
                }
            }
        }
        for (int i = 0; i < 2; i++) {
            try (Jedis jedis = on(i)) {
                assertThat(jedis.exists(prefix + "lock:one-down")).as("released on master " + i).isFalse();
            }
        }
    }

    @Test
    void aMajorityDownIsABackendFailureNotARefusal() {
        LockManager locks = manager();
        servers.get(1).kill();
        servers.get(2).kill();
        assertThatThrownBy(() -> locks.tryAcquire("two-down")).isInstanceOf(LockBackendException.class)
                .hasMessageContaining("2 of 3 masters failed");
        assertThatThrownBy(() -> locks.inspect("two-down")).isInstanceOf(LockBackendException.class);
        try (Jedis jedis = on(0)) {
            assertThat(jedis.exists(prefix + "lock:two-down")).as("the minority grant was undone").isFalse();
        }
    }

    @Test
    void aSplitVoteIsNotAGrantAndLeavesNothingBehind() {
        LockManager locks = manager();
        try (Jedis first = on(0); Jedis second = on(1)) {
            first.set(prefix + "lock:split", "1 1 grant-a other-host other/a", SetParams.setParams().px(30_000));
            second.set(prefix + "lock:split", "2 1 grant-b other-host other/b", SetParams.setParams().px(30_000));
        }
        assertThat(locks.tryAcquire("split")).isEmpty();
        assertThat(locks.inspect("split")).as("no value on a majority").isEmpty();
        try (Jedis third = on(2)) {
            assertThat(third.exists(prefix + "lock:split")).as("the minority grant was undone").isFalse();
        }
    }

    @Test
    void anotherOwnerWaitsUntilTheHolderReleases() throws Exception {
        LockManager holder = manager();
        LockManager waiter = manager();
        LockHandle held = holder.acquire("contended");
        assertThat(waiter.tryAcquire("contended")).isEmpty();
        CompletableFuture<LockHandle> waiting = waiter.acquireAsync("contended",
                LockOptions.defaults().withWait(Duration.ofSeconds(30))).toCompletableFuture();
        held.release();
        try (LockHandle next = waiting.get(20, TimeUnit.SECONDS)) {
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        }
    }

    /**
     * A master that ran the acquire script but whose answer was lost (it slept past the client's socket timeout)
     * holds the key although the grant never learnt its value there: renewal and release still reach it, by the
     * grant's claim, instead of leaving it to block that master for the whole lease.
     */
    @Test
    void renewalAndReleaseReachAMasterWhoseAnswerWasLost() throws Exception {
        LockManager locks = manager();
        String key = prefix + "lock:lost-answer";
        locks.acquire("lost-answer").release(); // caches the scripts: the sleeping master runs the EVALSHA later
        sleep(2, Duration.ofSeconds(4));
        LockHandle handle = locks.acquire("lost-answer");
        String late = await("the sleeping master ran the acquire once awake").atMost(Duration.ofSeconds(20))
                .ignoreExceptions().until(() -> valuesOf(key).get(2), v -> v != null);
        assertThat(LockValue.parse(late).token()).as("its own token: the grant never saw it to write the final one back")
                .isNotEqualTo(handle.fencingToken());
        assertThat(LockValue.parse(late).ownerId()).startsWith(locks.instanceId() + "/");

        handle.extend(Duration.ofMinutes(5));
        try (Jedis third = on(2)) {
            assertThat(third.pttl(key)).as("renewed on the master whose answer was lost").isGreaterThan(60_000L);
        }
        handle.release();
        assertThat(valuesOf(key)).as("released on every master").containsOnlyNulls();
    }

    /**
     * Redlock's validity time: a majority granted, but only after the lease ran out; undone everywhere, and reported
     * as a backend failure, not as "held by another".
     */
    @Test
    void aMajorityThatGrantedTooLateIsNoGrantAndLeavesNothingBehind() {
        LockManager locks = manager(PATIENT, 0.0);
        pause(1, Duration.ofMillis(2_000));
        pause(2, Duration.ofMillis(2_000));
        assertThatThrownBy(() -> locks.tryAcquire("too-late", LockOptions.defaults().withWait(Duration.ZERO)
                .withLease(Duration.ofMillis(1_500))))
                .isInstanceOf(LockBackendException.class).hasMessageContaining("longer than its lease");
        assertThat(valuesOf(prefix + "lock:too-late")).containsOnlyNulls();
    }

    /**
     * The clock-drift allowance: a grant that took 2.5 s of a 4 s lease is refused when the clocks may drift by
     * 45 % of the lease (and undone on every master), and granted when they may drift by 1 %.
     */
    @Test
    void aGrantIsRefusedWhenLessThanTheDriftAllowanceOfItsLeaseIsLeft() {
        LockOptions fourSeconds = LockOptions.defaults().withWait(Duration.ZERO).withLease(Duration.ofSeconds(4));
        LockManager drifting = manager(PATIENT, 0.45);
        pause(1, Duration.ofMillis(2_500));
        pause(2, Duration.ofMillis(2_500));
        assertThatThrownBy(() -> drifting.tryAcquire("drift", fourSeconds))
                .isInstanceOf(LockBackendException.class).hasMessageContaining("clock drift allowance");
        assertThat(valuesOf(prefix + "lock:drift")).containsOnlyNulls();

        LockManager steady = manager(PATIENT, 0.01);
        pause(1, Duration.ofMillis(2_500));
        pause(2, Duration.ofMillis(2_500));
        try (LockHandle handle = steady.tryAcquire("drift", fourSeconds).orElseThrow()) {
            assertThat(steady.inspect("drift").orElseThrow().fencingToken()).isEqualTo(handle.fencingToken());
        }
    }

    /**
     * The highest token of a majority is written back to it before the grant is returned: a later majority that
     * does not include the master with the highest counter still issues a higher token.
     */
    @Test
    void tokensGrowAcrossMajoritiesThatDoNotShareTheHighestCounter() {
        LockManager locks = manager();
        long farAhead = Instant.now().plus(Duration.ofDays(365)).toEpochMilli() * 1_000;
        try (Jedis first = on(0)) {
            first.set(prefix + "fence", Long.toString(farAhead));
        }
        long first;
        try (LockHandle handle = locks.acquire("fenced")) {
            first = handle.fencingToken();
            assertThat(first).isGreaterThan(farAhead);
        }
        servers.get(0).kill();
        try (LockHandle handle = locks.acquire("fenced")) {
            assertThat(handle.fencingToken()).isGreaterThan(first);
        }
    }

    @Test
    void aHolderKeepsItsLockWhileOneMasterIsKilledAndRestarted() throws Exception {
        LockManager holder = manager();
        LockManager other = manager();
        LockHandle handle = holder.acquire("survivor", LockOptions.defaults().withLease(Duration.ofMillis(1_500))
                .withScope(LockScope.LEASE));
        Instant until = holder.inspect("survivor").orElseThrow().until();
        servers.get(0).kill();
        await("renewed on the remaining majority").atMost(Duration.ofSeconds(15))
                .until(() -> holder.inspect("survivor").orElseThrow().until().isAfter(until.plusMillis(1_000)));
        assertThat(handle.isValid()).isTrue();

        servers.get(0).restart();
        Instant later = holder.inspect("survivor").orElseThrow().until();
        await("renewed after the restart").atMost(Duration.ofSeconds(15))
                .until(() -> holder.inspect("survivor").orElseThrow().until().isAfter(later.plusMillis(1_000)));
        assertThat(handle.isValid()).isTrue();
        assertThat(other.tryAcquire("survivor")).as("one empty master is no majority").isEmpty();

        handle.release();
        try (LockHandle next = other.acquire("survivor", LockOptions.defaults().withWait(Duration.ofSeconds(10)))) {
            assertThat(next.fencingToken()).isGreaterThan(handle.fencingToken());
        }
    }

    @Test
    void aHolderIsToldWhenItsMajorityIsGone() throws Exception {
        LockManager holder = manager();
        LockHandle handle = holder.acquire("stranded", LockOptions.defaults().withLease(Duration.ofMillis(1_500))
                .withScope(LockScope.LEASE));
        CountDownLatch lost = new CountDownLatch(1);
        handle.onLost(lost::countDown);
        servers.get(1).kill();
        servers.get(2).kill();
        assertThat(lost.await(15, TimeUnit.SECONDS)).as("lease-loss callback ran").isTrue();
        assertThat(handle.isValid()).isFalse();
    }

    /**
     * Redlock's known limit, shown rather than hidden: a master that restarts without persistence forgets the
     * locks it granted, and a second owner can then hold a majority while the first still does. The fencing
     * token still orders them: the later grant has the higher token, so a resource that checks tokens refuses
     * the earlier holder's writes.
     */
    @Test
    void aMasterRestartedWithoutPersistenceCanBreakExclusionButNotFencing() {
        LockManager first = manager();
        LockManager second = manager();
        servers.get(2).kill();
        LockHandle early = first.acquire("amnesia", LockOptions.defaults().withLease(Duration.ofSeconds(30)));
        servers.get(1).kill();
        servers.get(1).restart();
        servers.get(2).restart();

        LockHandle late = second.acquire("amnesia", LockOptions.defaults().withWait(Duration.ofSeconds(10)));
        assertThat(early.isValid()).as("the first holder does not know yet").isTrue();
        assertThat(late.fencingToken()).isGreaterThan(early.fencingToken());
        late.release();
    }
}
