package io.txlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txlock.LockHandle;
import io.txlock.LockInterruptedException;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.spi.TransactionSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * The fair queue of a single master, on the shared Redis: several managers, each over a provider of its own as
 * separate JVMs would be, and child JVMs queue for one name. Grants go in the order the waiters queued, and a
 * waiter that gives up, is closed or dies leaves the queue: at once, or once its place expires.
 */
class FairQueueTest {

    private static final String PREFIX = SharedRedis.randomPrefix();
    private static final LockOptions WAIT = LockOptions.defaults().withScope(LockScope.LEASE).withWait(Duration.ofSeconds(60));
    /** How long a waiter may take to queue, or a granted one to hear of it, on a loaded machine. */
    private static final Duration PATIENCE = Duration.ofSeconds(30);

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

    /** @return the claims queued for {@code name}, first come first */
    private static List<String> queue(String name) {
        return places(name).stream().map(FairQueueTest::claimOfPlace).toList();
    }

    /** @return the places queued for {@code name}: "<expires> <lease> <the waiter's list> <claim>" (see queue.lua) */
    private static List<String> places(String name) {
        return redis.lrange(PREFIX + "queue:" + name, 0, -1);
    }

    static String claimOfPlace(String place) {
        return place.split(" ", 4)[3];
    }

    private static void awaitQueued(String name, int waiters) {
        await("waiters queued for '" + name + "'").atMost(PATIENCE).until(() -> queue(name).size() == waiters);
    }

    /** A waiter on a thread of its own; the future completes with its grant's token once it has released it. */
    private static CompletableFuture<Long> waitOnThread(LockManager locks, String name, List<Integer> order, int who) {
        CompletableFuture<Long> done = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try (LockHandle handle = locks.acquire(name, WAIT)) {
                order.add(who);
                done.complete(handle.fencingToken());
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, "waiter-" + who);
        thread.start();
        return done;
    }

    @Test
    void grantsGoToManagersInTheOrderTheyQueued() throws Exception {
        String name = "fifo";
        LockHandle held = manager().acquire(name, WAIT);
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Long>> waiters = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            waiters.add(waitOnThread(manager(), name, order, i));
            awaitQueued(name, i + 1);
        }
        held.release();

        long previous = held.fencingToken();
        for (CompletableFuture<Long> waiter : waiters) {
            long token = waiter.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            assertThat(token).isGreaterThan(previous);
            previous = token;
        }
        assertThat(order).as("grant order").containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(redis.exists(PREFIX + "queue:" + name)).as("no place left behind").isFalse();
    }

    @Test
    void grantsGoToChildJvmsAndThisOneInTheOrderTheyQueued() throws Exception {
        String name = "fifo-jvms";
        String config = RedisProviderFactory.config(List.of(SharedRedis.address()), PREFIX);
        LockHandle held = manager().acquire(name, WAIT);
        try (ChildProcess first = ChildProcess.start(OneGrantProcess.class, RedisProviderFactory.class.getName(), config, name)) {
            first.expect("STARTED", ChildProcess.START);
            awaitQueuedPatiently(name, 1);
            try (ChildProcess second = ChildProcess.start(OneGrantProcess.class, RedisProviderFactory.class.getName(), config, name)) {
                second.expect("STARTED", ChildProcess.START);
                awaitQueuedPatiently(name, 2);
                grantedInTheOrderTheyQueued(name, held, first, second);
            }
        }
    }

    /** This JVM queues third; the holder releases; the tokens show the order of the grants. */
    private void grantedInTheOrderTheyQueued(String name, LockHandle held, ChildProcess first, ChildProcess second) throws Exception {
        CompletableFuture<Long> last = waitOnThread(manager(), name, new CopyOnWriteArrayList<>(), 2);
        awaitQueued(name, 3);
        held.release();

        long firstToken = Long.parseLong(first.expect("GOT ", PATIENCE));
        long secondToken = Long.parseLong(second.expect("GOT ", PATIENCE));
        long lastToken = last.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertThat(firstToken).as("first child").isGreaterThan(held.fencingToken());
        assertThat(secondToken).as("second child, granted after the first").isGreaterThan(firstToken);
        assertThat(lastToken).as("this JVM, granted last").isGreaterThan(secondToken);
    }

    /** A child JVM may start slowly; once it printed STARTED it queues within the usual patience. */
    private static void awaitQueuedPatiently(String name, int waiters) {
        await("waiters queued for '" + name + "'").atMost(ChildProcess.START).until(() -> queue(name).size() == waiters);
    }

    @Test
    void anInterruptedWaiterLeavesTheQueueBeforeItsAcquireReturns() throws Exception {
        InterruptedWaiter queued = new InterruptedWaiter("interrupted", manager());
        queued.queueSecond();

        queued.interruptFirst();
        queued.releaseServesSecond();
    }

    /**
     * The holder of a name and two waiters of other managers queued behind it, the first on a thread of its own, to be
     * interrupted while the second stays.
     */
    private final class InterruptedWaiter {
        private final String name;
        private final LockHandle held;
        private final CompletableFuture<Thread> firstThread = new CompletableFuture<>();
        private final CompletableFuture<Throwable> firstOutcome = new CompletableFuture<>();
        /** The first waiter's claim in the queue. */
        final String firstClaim;
        private CompletableFuture<Long> second;

        /** Takes the name and queues the first waiter, of {@code first}. */
        InterruptedWaiter(String name, LockManager first) {
            this.name = name;
            held = manager().acquire(name, WAIT);
            new Thread(() -> {
                firstThread.complete(Thread.currentThread());
                try {
                    first.acquire(name, WAIT).release();
                    firstOutcome.complete(null);
                } catch (Throwable e) {
                    firstOutcome.complete(e);
                }
            }, "waiter-to-interrupt").start();
            awaitQueued(name, 1);
            firstClaim = queue(name).get(0);
        }

        void queueSecond() {
            second = waitOnThread(manager(), name, new CopyOnWriteArrayList<>(), 1);
            awaitQueued(name, 2);
        }

        /** Interrupts the first waiter: its acquire fails, and it has left the queue by the time it returns. */
        void interruptFirst() throws Exception {
            firstThread.get().interrupt();
            assertThat(firstOutcome.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(LockInterruptedException.class);
            assertThat(queue(name)).as("the queue as soon as the interrupted acquire returned").hasSize(1).doesNotContain(firstClaim);
        }

        /** Releases the name: the second waiter is granted it. */
        void releaseServesSecond() throws Exception {
            held.release();
            assertThat(second.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
        }
    }

    /**
     * Three managers block in the queue; each release wakes the head alone: it takes the grant from its list, and the
     * others never run their acquire script again (counted; a recheck of a minute keeps them from looking on their own).
     */
    @Test
    void aReleaseWakesExactlyTheHead() throws Exception {
        String name = "head-only";
        LockHandle held = manager().acquire(name, WAIT);
        List<RedisLockProvider> providers = new ArrayList<>();
        List<CompletableFuture<LockHandle>> waits = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            RedisLockProvider provider = RedisLockProvider.builder(SharedRedis.address(), SharedRedis.config()).keyPrefix(PREFIX)
                    .recheck(Duration.ofMinutes(1)).build();
            LockManager waiter = LockManager.builder(provider).transactions(TransactionSupport.none()).build();
            toClose.add(waiter);
            providers.add(provider);
            waits.add(waiter.acquireAsync(name, WAIT).toCompletableFuture());
            awaitQueued(name, i + 1);
        }
        held.release();
        LockHandle first = waits.get(0).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertThat(queue(name)).as("still queued").hasSize(2);
        assertThat(providers).extracting(RedisLockProvider::handOffsTaken).as("grants taken from a list").containsExactly(1L, 0L, 0L);
        assertThat(providers).extracting(RedisLockProvider::queuedLooks).as("acquire scripts run").containsExactly(1L, 1L, 1L);

        first.release();
        LockHandle second = waits.get(1).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(providers).extracting(RedisLockProvider::handOffsTaken).containsExactly(1L, 1L, 0L);
        assertThat(providers).extracting(RedisLockProvider::queuedLooks).containsExactly(1L, 1L, 1L);
        second.release();
        waits.get(2).get(PATIENCE.toSeconds(), TimeUnit.SECONDS).release();
        assertThat(providers).extracting(RedisLockProvider::handOffsTaken).containsExactly(1L, 1L, 1L);
    }

    /**
     * An interrupted waiter blocked in its BLPOP: the cancel closes that connection (the server no longer lists it),
     * the waiter leaves the queue and deletes its list, and the next waiter is served.
     */
    @Test
    void aCancelledBlockedWaiterLeavesTheQueueAndItsConnection() throws Exception {
        String name = "cancelled-blocked";
        String clientName = "txlock-cancel-" + PREFIX.substring(12, 24);
        RedisLockProvider provider = RedisLockProvider.builder(SharedRedis.address(), DefaultJedisClientConfig.builder()
                .clientName(clientName).connectionTimeoutMillis(2_000).socketTimeoutMillis(2_000).build())
                .keyPrefix(PREFIX).recheck(Duration.ofMinutes(1)).build();
        LockManager leaving = LockManager.builder(provider).transactions(TransactionSupport.none()).build();
        toClose.add(leaving);
        InterruptedWaiter queued = new InterruptedWaiter(name, leaving);
        await("the waiter blocked").atMost(PATIENCE).until(() -> blocked(clientName).size() == 1);
        String blockedId = blocked(clientName).get(0);
        queued.queueSecond();

        queued.interruptFirst();
        String claim = queued.firstClaim;
        assertThat(redis.exists(PREFIX + "handed:" + claim.substring(0, claim.indexOf(' ')))).as("its list").isFalse();
        await("its blocked connection closed").atMost(PATIENCE)
                .until(() -> SharedRedis.clientList().lines().noneMatch(l -> l.startsWith("id=" + blockedId + " ")));
        assertThat(provider.queuedLooks()).as("acquire scripts run").isEqualTo(1);

        queued.releaseServesSecond();
    }

    /**
     * A caller's client with a pool of 2 lets one attempt block at a time; a second one waits for it, looking in Redis
     * now and then, and both are granted in turn, with connections left for the releases.
     */
    @Test
    void waitersBeyondHalfThePoolAreServedByTheirRechecks() throws Exception {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(2);
        pool.setMaxIdle(2);
        try (RedisClient client = RedisClient.builder().hostAndPort(SharedRedis.address()).clientConfig(SharedRedis.config())
                .poolConfig(pool).build()) {
            RedisLockProvider provider = RedisLockProvider.builder(client).keyPrefix(PREFIX).build();
            assertThat(provider.blockedWaitersLimit()).isEqualTo(1);
            LockManager waiter = LockManager.builder(provider).transactions(TransactionSupport.none()).build();
            toClose.add(waiter);
            LockManager holder = manager();
            List<LockHandle> held = List.of(holder.acquire("pool-0", WAIT), holder.acquire("pool-1", WAIT));
            List<CompletableFuture<LockHandle>> waits = List.of(waiter.acquireAsync("pool-0", WAIT).toCompletableFuture(),
                    waiter.acquireAsync("pool-1", WAIT).toCompletableFuture());
            awaitQueued("pool-0", 1);
            awaitQueued("pool-1", 1);
            held.forEach(LockHandle::release);
            for (int i = 0; i < 2; i++) {
                try (LockHandle got = waits.get(i).get(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
                    assertThat(got.fencingToken()).isGreaterThan(held.get(i).fencingToken());
                }
            }
            waiter.close();
        }
    }

    /**
     * A caller's pool of one connection: its waiter blocks on that connection, and gives it back to the pool when its
     * wait ends (blocked waiters keep their connections between waits only where the pool has others), so that the
     * release that follows finds it.
     */
    @Test
    void aWaiterOfAPoolOfOneGivesItsConnectionBackForTheRelease() throws Exception {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(1);
        pool.setMaxIdle(1);
        pool.setMaxWait(Duration.ofSeconds(5));
        try (RedisClient client = RedisClient.builder().hostAndPort(SharedRedis.address()).clientConfig(SharedRedis.config())
                .poolConfig(pool).build()) {
            LockManager waiter = LockManager.builder(RedisLockProvider.builder(client).keyPrefix(PREFIX).build())
                    .transactions(TransactionSupport.none()).build();
            toClose.add(waiter);
            LockHandle held = manager().acquire("pool-of-one", WAIT);
            CompletableFuture<LockHandle> waits = waiter.acquireAsync("pool-of-one", WAIT).toCompletableFuture();
            awaitQueued("pool-of-one", 1);
            held.release();
            LockHandle got = waits.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            assertThat(got.fencingToken()).isGreaterThan(held.fencingToken());
            got.release();
            waiter.close();
        }
    }

    /** @return the ids of the connections named {@code clientName} that are blocked right now */
    private static List<String> blocked(String clientName) {
        return SharedRedis.clientList().lines().filter(l -> l.contains(" name=" + clientName + " ") && l.contains(" flags=b "))
                .map(l -> l.substring(3, l.indexOf(' '))).toList();
    }

    @Test
    void aClosedManagersWaiterLeavesTheQueueAndTheNextIsServed() throws Exception {
        String name = "closed";
        LockHandle held = manager().acquire(name, WAIT);
        LockManager closing = LockManager.builder(SharedRedis.provider(PREFIX)).transactions(TransactionSupport.none()).build();
        CompletableFuture<Long> closed = waitOnThread(closing, name, new CopyOnWriteArrayList<>(), 0);
        awaitQueued(name, 1);
        CompletableFuture<Long> next = waitOnThread(manager(), name, new CopyOnWriteArrayList<>(), 1);
        awaitQueued(name, 2);

        closing.close();
        ExecutionException stopped = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> closed.get(PATIENCE.toSeconds(), TimeUnit.SECONDS));
        assertThat(stopped.getCause()).isInstanceOf(IllegalStateException.class);
        assertThat(queue(name)).as("the queue once the closed manager's waiter returned").hasSize(1);

        held.release();
        assertThat(next.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
    }

    /**
     * A waiter JVM killed with {@code kill -9}: its place expires and the release after that passes over it. The
     * dead child asked for a lease of 10 minutes, so a lock handed to it would not come back within this test.
     */
    @Test
    void aKilledWaitersPlaceExpiresAndTheQueueMovesOnWithoutIt() throws Exception {
        String name = "killed";
        String config = RedisProviderFactory.config(List.of(SharedRedis.address()), PREFIX);
        LockHandle held = manager().acquire(name, WAIT);
        try (ChildProcess child = ChildProcess.start(LockHolderProcess.class, RedisProviderFactory.class.getName(), config, name,
                Long.toString(Duration.ofMinutes(10).toMillis()))) {
            awaitQueuedPatiently(name, 1);
            String childClaim = queue(name).get(0);
            CompletableFuture<Long> next = waitOnThread(manager(), name, new CopyOnWriteArrayList<>(), 1);
            awaitQueued(name, 2);

            child.kill();
            await("the dead child's place expired").atMost(PATIENCE).until(() -> placeExpired(name, childClaim));
            held.release();
            assertThat(next.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
            assertThat(queue(name)).as("the dead child's place was dropped").isEmpty();
        }
    }

    /**
     * A waiter JVM killed just before its turn, its place still live: the release hands it the lock, as ZooKeeper
     * and etcd do to a dead waiter whose session or lease has not run out; the lock comes back when the lease the
     * dead waiter asked for runs out, with a higher token.
     */
    @Test
    void aWaiterKilledJustBeforeItsTurnHoldsTheLockOnlyForItsLease() throws Exception {
        String name = "killed-at-its-turn";
        String config = RedisProviderFactory.config(List.of(SharedRedis.address()), PREFIX);
        LockHandle held = manager().acquire(name, WAIT);
        try (ChildProcess child = ChildProcess.start(LockHolderProcess.class, RedisProviderFactory.class.getName(), config, name,
                Long.toString(Duration.ofSeconds(1).toMillis()))) {
            awaitQueuedPatiently(name, 1);
            CompletableFuture<Long> next = waitOnThread(manager(), name, new CopyOnWriteArrayList<>(), 1);
            awaitQueued(name, 2);

            child.kill();
            held.release();
            assertThat(next.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
        }
    }

    /** @return whether the waiter's place in the queue expired by the server's clock (or is gone) */
    private static boolean placeExpired(String name, String claim) {
        String entry = places(name).stream().filter(p -> claimOfPlace(p).equals(claim)).findFirst().orElse(null);
        if (entry == null) {
            return true;
        }
        List<String> time;
        try (Jedis jedis = new Jedis(SharedRedis.address(), SharedRedis.config())) {
            time = jedis.time();
        }
        long nowMillis = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        return Long.parseLong(entry.substring(0, entry.indexOf(' '))) < nowMillis;
    }
}
