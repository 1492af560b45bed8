package io.txlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.txlock.LockBackendException;
import io.txlock.LockHandle;
import io.txlock.LockInfo;
import io.txlock.LockManager;
import io.txlock.LockNotHeldException;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.spi.Attempt;
import io.txlock.spi.Grant;
import io.txlock.spi.GrantListener;
import io.txlock.spi.LockOwner;
import io.txlock.spi.LockRequest;
import io.txlock.spi.TransactionSupport;
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
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/** The single-node provider on the shared Redis, under a key prefix of its own. */
class RedisLockProviderTest {

    private static final String PREFIX = SharedRedis.randomPrefix();
    private static RedisClient redis;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeAll
    static void connect() {
        redis = SharedRedis.client();
    }

    @AfterAll
    static void cleanUp() {
        SharedRedis.deleteKeys(redis, PREFIX);
        redis.close();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    private LockManager manager() {
        LockManager m = LockManager.builder(SharedRedis.provider(PREFIX)).transactions(TransactionSupport.none()).build();
        toClose.add(m);
        return m;
    }

    private RedisLockProvider provider() {
        RedisLockProvider p = SharedRedis.provider(PREFIX);
        toClose.add(p);
        return p;
    }

    private static LockRequest request(String name, String owner, Duration lease) {
        return new LockRequest(name, new LockOwner("host a", "instance", owner), lease, Duration.ZERO, false, GrantListener.NONE);
    }

    @Test
    void grantsAndShowsTheHolderUntilReleased() {
        LockManager locks = manager();
        Instant before = Instant.now().minusSeconds(1);
        try (LockHandle handle = locks.acquire("order:42", LockOptions.defaults().withLease(Duration.ofSeconds(20)))) {
            LockInfo info = locks.inspect("order:42").orElseThrow();
            assertThat(info.ownerId()).startsWith(locks.instanceId() + "/");
            assertThat(info.fencingToken()).isEqualTo(handle.fencingToken());
            assertThat(info.since()).isAfter(before);
            assertThat(info.until()).isAfter(info.since().plusSeconds(10)).isBefore(info.since().plusSeconds(21));
            assertThat(redis.pttl(PREFIX + "lock:order:42")).isBetween(1L, 20_000L);
        }
        assertThat(locks.inspect("order:42")).isEmpty();
        assertThat(redis.exists(PREFIX + "lock:order:42")).isFalse();
    }

    @Test
    void ownerHostWithSpacesAndOddCharactersSurvivesTheRoundTrip() {
        RedisLockProvider provider = provider();
        Grant grant = provider.tryAcquire(request("odd-host", "t1 with spaces/and:colons", Duration.ofSeconds(10))).grant();
        LockInfo info = provider.inspect("odd-host").orElseThrow();
        assertThat(info.ownerHost()).isEqualTo("host a");
        assertThat(info.ownerId()).isEqualTo("instance/t1 with spaces/and:colons");
        assertThat(info.fencingToken()).isEqualTo(grant.fencingToken());
        provider.release(grant);
    }

    @Test
    void tokensGrowAcrossHoldersAndStayTheSameOnReentry() {
        LockManager first = manager();
        LockManager second = manager();
        long previous = 0;
        for (int i = 0; i < 5; i++) {
            LockManager locks = i % 2 == 0 ? first : second;
            try (LockHandle outer = locks.acquire("counter")) {
                assertThat(outer.fencingToken()).isGreaterThan(previous);
                try (LockHandle inner = locks.acquire("counter")) {
                    assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
                    assertThat(inner.holdCount()).isEqualTo(2);
                }
                previous = outer.fencingToken();
            }
        }
    }

    @Test
    void heldLockIsRefusedAndReportsTheHoldersRemainingLease() {
        RedisLockProvider provider = provider();
        Grant grant = provider.tryAcquire(request("busy", "holder", Duration.ofSeconds(10))).grant();
        Attempt attempt = provider.tryAcquire(request("busy", "other", Duration.ofSeconds(10)));
        assertThat(attempt.isGranted()).isFalse();
        assertThat(attempt.retryAfter()).isBetween(Duration.ofMillis(1), Duration.ofSeconds(10));
        provider.release(grant);
        assertThat(provider.tryAcquire(request("busy", "other", Duration.ofSeconds(10))).isGranted()).isTrue();
    }

    /** The seeds' bug: a holder whose lease ran out must not free (or extend) the lock its successor now holds. */
    @Test
    void staleHolderCannotReleaseOrRenewItsSuccessorsLock() {
        RedisLockProvider provider = provider();
        Grant stale = provider.tryAcquire(request("handover", "slow", Duration.ofMillis(200))).grant();
        await().atMost(Duration.ofSeconds(10)).until(() -> provider.inspect("handover").isEmpty());
        Grant successor = provider.tryAcquire(request("handover", "fast", Duration.ofSeconds(10))).grant();

        assertThatThrownBy(() -> provider.release(stale)).isInstanceOf(LockNotHeldException.class);
        assertThatThrownBy(() -> provider.renew(stale, Duration.ofSeconds(30))).isInstanceOf(LockNotHeldException.class);
        // the same owner re-acquiring is a new grant: its old grant cannot touch it either
        LockInfo holder = provider.inspect("handover").orElseThrow();
        assertThat(holder.ownerId()).isEqualTo("instance/fast");
        assertThat(holder.fencingToken()).isEqualTo(successor.fencingToken()).isGreaterThan(stale.fencingToken());
        assertThat(holder.until()).isBefore(holder.since().plusSeconds(11));
        provider.release(successor);
        assertThatThrownBy(() -> provider.release(successor)).isInstanceOf(LockNotHeldException.class);
    }

    @Test
    void renewalKeepsTheTokenAndExtendsTheKey() {
        RedisLockProvider provider = provider();
        Grant grant = provider.tryAcquire(request("renewed", "me", Duration.ofSeconds(2))).grant();
        provider.renew(grant, Duration.ofSeconds(60));
        assertThat(redis.pttl(PREFIX + "lock:renewed")).isGreaterThan(10_000L);
        assertThat(provider.inspect("renewed").orElseThrow().fencingToken()).isEqualTo(grant.fencingToken());
        provider.release(grant);
    }

    /** Redisson keeps a key per lock name for its counters; here only the one counter of the prefix stays. */
    @Test
    void nothingButTheOneCounterStaysAfterManyNames() {
        String prefix = SharedRedis.randomPrefix();
        try (LockManager locks = LockManager.builder(SharedRedis.provider(prefix)).transactions(TransactionSupport.none()).build()) {
            for (int i = 0; i < 200; i++) {
                locks.acquire("name-" + i).close();
            }
            assertThat(SharedRedis.keys(redis, prefix)).containsExactly(prefix + "fence");
        } finally {
            SharedRedis.deleteKeys(redis, prefix);
        }
    }

    /**
     * A provider whose waiters never look again on their own within a test (a recheck of a minute): a grant it
     * takes came from its list.
     */
    private RedisLockProvider blockingProvider(redis.clients.jedis.JedisClientConfig config) {
        RedisLockProvider p = RedisLockProvider.builder(SharedRedis.address(), config).keyPrefix(PREFIX)
                .recheck(Duration.ofMinutes(1)).build();
        toClose.add(p);
        return p;
    }

    /** A queued waiter is handed the lock by the release before it: popped from its list, not found by a re-check. */
    @Test
    void aQueuedWaiterIsHandedTheLockByTheRelease() throws Exception {
        LockManager holder = manager();
        RedisLockProvider waiting = blockingProvider(SharedRedis.config());
        LockManager waiter = LockManager.builder(waiting).transactions(TransactionSupport.none()).build();
        toClose.add(waiter);
        LockHandle held = holder.acquire("handoff");
        CompletableFuture<LockHandle> next = waiter.acquireAsync("handoff",
                LockOptions.defaults().withWait(Duration.ofSeconds(30))).toCompletableFuture();
        awaitQueued("handoff");
        held.release();
        try (LockHandle got = next.get(30, TimeUnit.SECONDS)) {
            assertThat(got.fencingToken()).isGreaterThan(held.fencingToken());
            assertThat(waiting.handOffsTaken()).as("granted from the release's push").isEqualTo(1);
            assertThat(waiting.queuedLooks()).as("acquire scripts: the one that queued").isEqualTo(1);
        }
    }

    /**
     * Each waiting attempt blocks on one connection of its own, and nothing subscribes on a single master; nothing of
     * the queues stays once nobody waits.
     */
    @Test
    void eachBlockedWaiterHoldsOneConnectionAndNothingSubscribes() throws Exception {
        String clientName = "txlock-test-" + PREFIX.substring(12, 24);
        RedisLockProvider waiting = blockingProvider(DefaultJedisClientConfig.builder()
                .clientName(clientName).connectionTimeoutMillis(2_000).socketTimeoutMillis(2_000).build());
        LockManager waiter = LockManager.builder(waiting).transactions(TransactionSupport.none()).build();
        toClose.add(waiter);
        LockManager holder = manager();
        List<LockHandle> held = new ArrayList<>();
        List<CompletableFuture<LockHandle>> waits = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(holder.acquire("sub-" + i));
            waits.add(waiter.acquireAsync("sub-" + i, LockOptions.defaults().withWait(Duration.ofSeconds(30))).toCompletableFuture());
        }
        for (int i = 0; i < 3; i++) {
            awaitQueued("sub-" + i);
        }
        await("three blocked connections").atMost(Duration.ofSeconds(30)).until(() -> blockedConnections(clientName) == 3);
        assertThat(SharedRedis.clientList().lines().filter(l -> l.contains("name=" + clientName + " ")).filter(l -> !l.contains(" sub=0 ")).count())
                .as("pub/sub connections of this provider").isZero();
        held.forEach(LockHandle::release);
        for (CompletableFuture<LockHandle> wait : waits) {
            wait.get(30, TimeUnit.SECONDS).release();
        }
        assertThat(waiting.handOffsTaken()).isEqualTo(3);
        assertThat(blockedConnections(clientName)).as("blocked connections once nobody waits").isZero();
        assertThat(SharedRedis.keys(redis, PREFIX).stream().filter(k -> k.contains(":sub-") || k.contains(":handed:")))
                .as("keys of the names and the waiters").isEmpty();
    }

    /** @return how many connections named {@code clientName} are blocked (in a BLPOP) right now */
    static long blockedConnections(String clientName) {
        return SharedRedis.clientList().lines().filter(l -> l.contains(" name=" + clientName + " "))
                .filter(l -> l.contains(" flags=b ") && l.contains(" cmd=blpop ")).count();
    }

    /**
     * A hand-off pushed where its waiter does not block (its list rewritten to another) is found by the waiter's
     * re-check: the lock's key holds the waiter's claim.
     */
    @Test
    void aWaiterWhoseHandOffMessageIsLostFindsTheLockByItsRecheck() throws Exception {
        LockManager holder = manager();
        RedisLockProvider waiting = provider();
        LockManager waiter = LockManager.builder(waiting).transactions(TransactionSupport.none()).build();
        toClose.add(waiter);
        LockHandle held = holder.acquire("unheard");
        CompletableFuture<LockHandle> next = waiter.acquireAsync("unheard",
                LockOptions.defaults().withWait(Duration.ofSeconds(30))).toCompletableFuture();
        awaitQueued("unheard");
        String[] place = redis.lindex(PREFIX + "queue:unheard", 0).split(" ", 4);
        redis.lset(PREFIX + "queue:unheard", 0, place[0] + " " + place[1] + " " + PREFIX + "nobody-listens " + place[3]);
        held.release();
        try (LockHandle got = next.get(30, TimeUnit.SECONDS)) {
            assertThat(got.fencingToken()).isGreaterThan(held.fencingToken());
            assertThat(waiting.handOffsTaken()).as("nothing reached the waiter's list").isZero();
        }
    }

    /** A key deleted behind the provider's back hands nothing over: the first waiter's re-check takes the free lock. */
    @Test
    void aWaiterGetsALockDeletedWithoutARelease() throws Exception {
        RedisLockProvider holding = provider();
        Grant held = holding.tryAcquire(request("unannounced", "holder", Duration.ofSeconds(60))).grant();
        LockManager waiter = manager();
        CompletableFuture<LockHandle> waiting = waiter.acquireAsync("unannounced",
                LockOptions.defaults().withWait(Duration.ofSeconds(20))).toCompletableFuture();
        awaitQueued("unannounced");

        assertThat(redis.del(PREFIX + "lock:unannounced")).isEqualTo(1L);
        try (LockHandle got = waiting.get(30, TimeUnit.SECONDS)) {
            assertThat(got.fencingToken()).isGreaterThan(held.fencingToken());
        }
    }

    /** @return the claim of the first waiter queued for {@code name}, once there is one */
    private static String awaitQueued(String name) {
        await("a waiter queued for '" + name + "'").atMost(Duration.ofSeconds(30))
                .until(() -> redis.llen(PREFIX + "queue:" + name) > 0);
        return FairQueueTest.claimOfPlace(redis.lindex(PREFIX + "queue:" + name, 0));
    }

    /** An expiring key publishes nothing: the waiter's re-check, bounded by the holder's remaining lease, finds it free. */
    @Test
    void aWaiterGetsALockWhoseHolderNeverReleasesItOnceItsLeaseRunsOut() {
        RedisLockProvider crashed = provider();
        Grant abandoned = crashed.tryAcquire(request("abandoned", "crashed", Duration.ofMillis(1_500))).grant();
        LockManager locks = manager();
        try (LockHandle handle = locks.acquire("abandoned", LockOptions.defaults().withWait(Duration.ofSeconds(20)))) {
            assertThat(handle.fencingToken()).isGreaterThan(abandoned.fencingToken());
        }
    }

    @Test
    void aLeaseLockWhoseKeyDisappearsIsReportedLost() throws Exception {
        LockManager locks = manager();
        LockHandle handle = locks.acquire("evicted", LockOptions.defaults().withLease(Duration.ofMillis(600)).withScope(LockScope.LEASE));
        CountDownLatch lost = new CountDownLatch(1);
        handle.onLost(lost::countDown);
        redis.del(PREFIX + "lock:evicted");
        assertThat(lost.await(10, TimeUnit.SECONDS)).as("lease-loss callback ran").isTrue();
        assertThat(handle.isValid()).isFalse();
        assertThatThrownBy(handle::release).isInstanceOf(LockNotHeldException.class);
    }

    @Test
    void theWatchdogKeepsALeaseLockAliveWhileItsHolderLives() throws Exception {
        LockManager locks = manager();
        try (LockHandle handle = locks.acquire("watched", LockOptions.defaults().withLease(Duration.ofMillis(600)))) {
            Instant firstUntil = locks.inspect("watched").orElseThrow().until();
            await().atMost(Duration.ofSeconds(10)).until(() -> locks.inspect("watched").orElseThrow().until().isAfter(firstUntil.plusMillis(600)));
            assertThat(handle.isValid()).isTrue();
            assertThat(locks.inspect("watched").orElseThrow().fencingToken()).isEqualTo(handle.fencingToken());
        }
    }

    @Test
    void anUnreachableServerIsABackendFailureNotARefusal() {
        RedisLockProvider unreachable = RedisLockProvider.builder(new HostAndPort("127.0.0.1", SharedRedis.freePort()),
                DefaultJedisClientConfig.builder().connectionTimeoutMillis(500).socketTimeoutMillis(500).build()).build();
        try (LockManager locks = LockManager.builder(unreachable).transactions(TransactionSupport.none()).build()) {
            assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
                assertThatThrownBy(() -> locks.acquire("x")).isInstanceOf(LockBackendException.class)
                        .hasMessageContaining("127.0.0.1").hasMessageContaining("could not acquire 'txlock:lock:x'");
                assertThatThrownBy(() -> locks.tryAcquire("x")).isInstanceOf(LockBackendException.class);
                assertThatThrownBy(() -> locks.inspect("x")).isInstanceOf(LockBackendException.class)
                        .hasMessageContaining("could not inspect 'txlock:lock:x'");
            });
        }
    }

    @Test
    void aForeignValueUnderThePrefixIsReportedClearly() {
        RedisLockProvider provider = provider();
        redis.set(PREFIX + "lock:foreign", "not ours");
        assertThat(provider.tryAcquire(request("foreign", "me", Duration.ofSeconds(1))).isGranted()).isFalse();
        assertThatThrownBy(() -> provider.inspect("foreign")).isInstanceOf(LockBackendException.class)
                .hasMessageContaining("did not write");
        redis.del(PREFIX + "lock:foreign");
    }

    @Test
    void badConfigurationIsRefusedWithAMessageThatSaysWhatToFix() {
        HostAndPort address = SharedRedis.address();
        assertThatThrownBy(() -> RedisLockProvider.builder(address, SharedRedis.config()).keyPrefix(""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> RedisLockProvider.builder(address, SharedRedis.config()).keyPrefix("has space:"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("whitespace");
        assertThatThrownBy(() -> RedisLockProvider.builder(address, SharedRedis.config()).keyPrefix("x".repeat(201)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("200");
        assertThatThrownBy(() -> RedisLockProvider.builder(null, SharedRedis.config()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("HostAndPort");
        assertThatThrownBy(() -> RedisLockProvider.quorum(List.of(address, new HostAndPort("127.0.0.1", 1)), SharedRedis.config()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 3");
        assertThatThrownBy(() -> RedisLockProvider.quorum(List.of(address, address, new HostAndPort("127.0.0.1", 1)), SharedRedis.config()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
        assertThatThrownBy(() -> RedisLockProvider.builder(address, SharedRedis.config()).clockDriftFactor(0.7))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("clockDriftFactor");
    }

    @Test
    void aCallersOwnClientIsUsedAndLeftOpen() {
        try (RedisClient own = SharedRedis.client()) {
            try (LockManager locks = LockManager.builder(RedisLockProvider.builder(own).keyPrefix(PREFIX).build())
                    .transactions(TransactionSupport.none()).build()) {
                locks.acquire("own-client").close();
            }
            assertThat(own.ping()).isEqualTo("PONG");
        }
    }
}
