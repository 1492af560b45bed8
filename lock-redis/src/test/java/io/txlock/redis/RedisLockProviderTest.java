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
import io.txlock.testkit.ForwardingProvider;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
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

    @Test
    void waitersAreWokenByThePublishedRelease() throws Exception {
        RedisLockProvider waiting = provider();
        RedisLockProvider holding = provider();
        Grant grant = holding.tryAcquire(request("wake", "holder", Duration.ofSeconds(30))).grant();
        Hints hints = new Hints();
        try (AutoCloseable subscription = waiting.subscribe("wake", hints).orElseThrow()) {
            hints.awaitConfirmed();
            assertThat(hints.count()).as("only the confirmation so far").isEqualTo(1);
            holding.release(grant);
            hints.awaitMoreThan(1, "release hint received");
        }
    }

    @Test
    void oneSubscriberConnectionServesAllWaitersAndChannelsAreDroppedWhenNoneWait() throws Exception {
        String clientName = "txlock-test-" + PREFIX.substring(12, 24);
        RedisLockProvider provider = RedisLockProvider.builder(SharedRedis.address(), DefaultJedisClientConfig.builder()
                .clientName(clientName).connectionTimeoutMillis(2_000).socketTimeoutMillis(2_000).build()).keyPrefix(PREFIX).build();
        toClose.add(provider);
        List<AutoCloseable> subscriptions = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            subscriptions.add(provider.subscribe("sub-" + (i % 3), () -> { }).orElseThrow());
        }
        await("channels subscribed").atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            for (int i = 0; i < 3; i++) {
                assertThat(SharedRedis.subscribers(PREFIX + "released:sub-" + i)).isEqualTo(1L);
            }
        });
        assertThat(SharedRedis.clientList().lines().filter(l -> l.contains("name=" + clientName + " ")).filter(l -> !l.contains(" sub=0 ")).count()).as("pub/sub connections of this provider").isEqualTo(1);
        for (AutoCloseable s : subscriptions) {
            s.close();
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            for (int i = 0; i < 3; i++) {
                assertThat(SharedRedis.subscribers(PREFIX + "released:sub-" + i)).isZero();
            }
        });
    }

    /**
     * The release message, not the core's fallback re-check, hands the lock over. A waiter that nothing wakes
     * attempts again no sooner than 500 ms after a miss (the core's fallback pause while hints are subscribed),
     * so an attempt sooner than that after the miss was woken. The holder releases inside a miss of the waiter
     * that nothing woke (its previous attempt started after the last hint), just before it answers. On a machine
     * stalled for that long a round proves nothing either way, so up to five rounds are tried; with the message
     * ignored, none could succeed.
     */
    @Test
    void aWaiterIsWokenByTheReleaseMessageNotByItsFallbackRecheck() throws Exception {
        LockManager holder = manager();
        ObservedProvider observed = new ObservedProvider(provider());
        LockManager waiter = LockManager.builder(observed).transactions(TransactionSupport.none()).build();
        toClose.add(waiter);
        long fallbackPause = Duration.ofMillis(500).toNanos();
        List<Long> handoffs = new ArrayList<>();
        while (handoffs.size() < 5 && (handoffs.isEmpty() || handoffs.get(handoffs.size() - 1) >= fallbackPause)) {
            LockHandle held = holder.acquire("handoff");
            int hints = observed.hints();
            CompletableFuture<Long> releasedAt = observed.releaseInsideAnUnwokenMiss(held);
            CompletableFuture<LockHandle> waiting = waiter.acquireAsync("handoff",
                    LockOptions.defaults().withWait(Duration.ofSeconds(30))).toCompletableFuture();
            LockHandle got = waiting.get(30, TimeUnit.SECONDS);
            long missAnswered = releasedAt.get(30, TimeUnit.SECONDS);
            assertThat(got.fencingToken()).isGreaterThan(held.fencingToken());
            assertThat(observed.hints()).as("confirmation and release delivered").isGreaterThan(hints + 1);
            handoffs.add(observed.firstAttemptAfter(missAnswered) - missAnswered);
            got.release();
        }
        assertThat(handoffs).as("ns from the miss that released to the next attempt, in each round")
                .anyMatch(nanos -> nanos < fallbackPause);
    }

    /** A lost release message (the key deleted without a PUBLISH) costs the waiter only the fallback re-check. */
    @Test
    void aWaiterGetsTheLockWhenItsReleaseMessageIsLost() throws Exception {
        RedisLockProvider holding = provider();
        Grant held = holding.tryAcquire(request("unannounced", "holder", Duration.ofSeconds(60))).grant();
        ObservedProvider observed = new ObservedProvider(provider());
        LockManager waiter = LockManager.builder(observed).transactions(TransactionSupport.none()).build();
        toClose.add(waiter);
        CompletableFuture<LockHandle> waiting = waiter.acquireAsync("unannounced",
                LockOptions.defaults().withWait(Duration.ofSeconds(20))).toCompletableFuture();
        await("the waiter's subscription confirmed").atMost(Duration.ofSeconds(10)).until(() -> observed.hints() >= 1);
        int hints = observed.hints();

        assertThat(redis.del(PREFIX + "lock:unannounced")).isEqualTo(1L);
        try (LockHandle got = waiting.get(30, TimeUnit.SECONDS)) {
            assertThat(got.fencingToken()).isGreaterThan(held.fencingToken());
            assertThat(observed.hints()).as("no message: the fallback re-check found it free").isEqualTo(hints);
        }
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
                        .hasMessageContaining("127.0.0.1");
                assertThatThrownBy(() -> locks.tryAcquire("x")).isInstanceOf(LockBackendException.class);
                assertThatThrownBy(() -> locks.inspect("x")).isInstanceOf(LockBackendException.class);
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

    /** Passes everything to a real provider, recording its attempts and the release hints it delivers. */
    private static final class ObservedProvider extends ForwardingProvider {
        private final AtomicInteger hints = new AtomicInteger();
        /** When the last hint was delivered to the core (its callback returned). */
        private volatile long lastHintDelivered = System.nanoTime();
        private volatile long previousAttemptStarted;
        private final List<Long> attemptStarts = new CopyOnWriteArrayList<>();
        private final AtomicReference<Armed> inUnwokenMiss = new AtomicReference<>();

        /** A release to run inside a miss, once the subscription made after {@code hintsBefore} is confirmed. */
        private record Armed(int hintsBefore, Runnable release) {
        }

        ObservedProvider(RedisLockProvider delegate) {
            super(delegate);
        }

        int hints() {
            return hints.get();
        }

        /**
         * Releases {@code held} inside a miss of the waiter that starts next, once nothing can have woken it: its
         * subscription's confirmation was delivered, and its previous attempt started after the last hint, so no
         * wake-up is pending when the miss answers. Call before the waiter starts.
         *
         * @return when that miss answered (System.nanoTime)
         */
        CompletableFuture<Long> releaseInsideAnUnwokenMiss(LockHandle held) {
            CompletableFuture<Long> answered = new CompletableFuture<>();
            previousAttemptStarted = 0;
            inUnwokenMiss.set(new Armed(hints.get(), () -> {
                held.release();
                answered.complete(System.nanoTime());
            }));
            return answered;
        }

        long firstAttemptAfter(long nanos) {
            return attemptStarts.stream().filter(t -> t - nanos > 0).findFirst().orElseThrow();
        }

        @Override
        public Attempt tryAcquire(LockRequest request) {
            long start = System.nanoTime();
            long previous = previousAttemptStarted;
            previousAttemptStarted = start;
            attemptStarts.add(start);
            Attempt attempt = delegate.tryAcquire(request);
            Armed armed = inUnwokenMiss.get();
            if (!attempt.isGranted() && armed != null && hints.get() > armed.hintsBefore()
                    && previous != 0 && previous - lastHintDelivered > 0 && inUnwokenMiss.compareAndSet(armed, null)) {
                armed.release().run();
            }
            return attempt;
        }

        @Override
        public Optional<AutoCloseable> subscribe(String name, Runnable onRelease) {
            return delegate.subscribe(name, () -> {
                onRelease.run();
                lastHintDelivered = System.nanoTime();
                hints.incrementAndGet();
            });
        }
    }
}
