package io.txlock.testkit;

import static io.txlock.testkit.KitAssertions.assertHeldElsewhere;
import static io.txlock.testkit.KitAssertions.assertRefused;
import static io.txlock.testkit.KitAssertions.assertWaitedAbout;
import static io.txlock.testkit.KitAssertions.fill;
import static io.txlock.testkit.KitAssertions.inNewThread;
import static io.txlock.testkit.KitAssertions.quoted;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.txlock.LockBackendException;
import io.txlock.LockHandle;
import io.txlock.LockInterruptedException;
import io.txlock.LockInfo;
import io.txlock.LockManager;
import io.txlock.LockNotHeldException;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.LockTimeoutException;
import io.txlock.spi.Attempt;
import io.txlock.spi.Grant;
import io.txlock.spi.GrantListener;
import io.txlock.spi.LockOwner;
import io.txlock.spi.LockProvider;
import io.txlock.spi.LockRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract every provider x strategy x backend passes. Extend it, say how to build the provider here
 * and in a child JVM, and say how it behaves where providers legitimately differ.
 *
 * <pre>{@code
 * class RedisContractTest extends LockContractTest {
 *     static final HostAndPort REDIS = new HostAndPort("127.0.0.1", 6379);
 *     static final JedisClientConfig CONFIG = DefaultJedisClientConfig.builder().socketTimeoutMillis(500).build();
 *     static final String PREFIX = "test-" + UUID.randomUUID() + ":";   // a namespace of its own
 *     protected LockProvider newProvider() { return RedisLockProvider.builder(REDIS, CONFIG).keyPrefix(PREFIX).build(); }
 *     protected ProviderRecipe recipe() { return new ProviderRecipe(RedisFactory.class, PREFIX); }  // RedisFactory builds the same
 *     protected LockProvider newUnreachableProvider() {
 *         return RedisLockProvider.builder(new HostAndPort("127.0.0.1", 1), CONFIG).build();
 *     }
 * }
 * }</pre>
 * {@code FileLockContractTest} (in these test sources) is the smallest complete example.
 *
 * <p>Two {@link LockManager}s over two providers in one JVM stand for two nodes: each has its own instance id,
 * so they are distinct owners. Cross-process behaviour (mutual exclusion, a holder killed with {@code kill -9})
 * runs in child JVMs started from the test's class path ({@link ChildWorker}); they build their providers with
 * the {@link ProviderFactory} of {@link #recipe()} and inherit the {@code txlock.*} system properties. Lock names
 * are unique per test, so the tests of one class share its namespace safely. Providers that legitimately differ
 * say so through the overridable hooks ({@link #releaseAfterHolderDeath}, {@link #inspectShowsTheHolder},
 * {@link #backendExpiresLeases}, {@link #locksHeldAtOnce}, {@link #buildManager}); their defaults are the strict
 * contract.
 */
@Timeout(value = 180)
public abstract class LockContractTest implements LateRenewalChecks, AdminChecks {

    /** How long the kit waits for something that must happen: only a failing test waits this long. */
    protected static final Duration PATIENCE = Duration.ofSeconds(30);
    /** How late a timed wait may end on a loaded machine. */
    protected static final Duration SLACK = Duration.ofSeconds(3);
    /** A call that must not wait returns well within this, far below any wait or backend lock timeout. */
    protected static final Duration AT_ONCE = Duration.ofMillis(1500);
    private static final Duration SHORT_WAIT = Duration.ofMillis(500);
    private static final Duration JVM_START = Duration.ofSeconds(120);
    private static final Duration JVM_RUN = Duration.ofSeconds(120);
    private static final int JVMS = 2;
    private static final int MANAGERS_PER_JVM = 2;
    private static final int THREADS_PER_JVM = 8;
    private static final int INCREMENTS_PER_THREAD = 25;
    private static final int RACE_ROUNDS = 200;
    /** Long enough for a waiter to be blocked in the backend, or queued, when the kit interrupts or closes it. */
    private static final Duration BLOCKED_IN_BACKEND = Duration.ofMillis(400);

    private final List<LockManager> managers = new ArrayList<>();
    private String prefix;

    /** @return a new provider on the backend under test; the kit closes it (via its LockManager) */
    protected abstract LockProvider newProvider();

    /** @return how a child JVM builds a provider on the same backend and namespace as {@link #newProvider()} */
    protected abstract ProviderRecipe recipe();

    /**
     * @return a provider configured for a backend that cannot be reached (a closed port, a stopped server),
     *     with short connect timeouts: every lock operation on it must fail with {@code LockBackendException}
     */
    protected abstract LockProvider newUnreachableProvider();

    /**
     * How long after a holder's JVM is killed ({@code kill -9}) its LEASE-scoped lock becomes free. The backend
     * expires a leased grant after the lease; a grant that lives with a session (a row lock held by an open
     * transaction, a ZooKeeper ephemeral node) ends when the backend notices the session died.
     *
     * @param lease the lease the dead holder asked for
     * @return the longest time the kit waits for the lock after the kill (the kit adds slack for a loaded machine)
     */
    protected Duration releaseAfterHolderDeath(Duration lease) {
        return lease;
    }

    /**
     * Builds the kit's lock managers, each standing for one node. Override to configure the builder, for example
     * with transaction support; child JVMs always use the default builder.
     *
     * @param provider a provider from {@link #newProvider()} or {@link #newUnreachableProvider()}
     * @return a manager over it; the kit closes it
     */
    protected LockManager buildManager(LockProvider provider) {
        return LockManager.builder(provider).build();
    }

    /**
     * The grant a holder in another JVM received, rebuilt from the token and owner id it reported, so that the kit
     * can check the provider refuses that holder's late release and renewal once it died and another owner took the
     * lock. Override it wherever a grant is data the backend checks (a row's token and owner, a key's value).
     *
     * @param name the lock name
     * @param token the dead holder's fencing token
     * @param ownerId the dead holder's owner id, as {@link LockInfo#ownerId()} showed it to its own manager
     * @return the grant, or empty (the default) where it cannot be rebuilt outside the holder's process: a
     *     connection or session that died with it
     */
    protected Optional<Grant> grantOfADeadHolder(String name, long token, String ownerId) {
        return Optional.empty();
    }

    /**
     * @return {@code false} if {@link LockManager#inspect} by another node can only tell that a lock is held, not by
     *     whom nor with which token (SELECT_FOR_UPDATE in LEASE scope: the holder's row is uncommitted); the kit
     *     then checks only that it is shown as held (the holder's own manager must still show it in full)
     */
    protected boolean inspectShowsTheHolder() {
        return true;
    }

    /**
     * @return {@code false} if an unrenewed grant stays in the backend until its holder's session ends (a row lock
     *     in an open transaction), even where the core renews it as a lease; the kit then does not wait for a
     *     lease to run out in the backend
     */
    protected boolean backendExpiresLeases() {
        return true;
    }

    /**
     * @return how many locks the kit may hold at once on the backend, across all its managers; at least 8. A
     *     strategy that keeps a connection per held lock is bounded by its pool
     */
    protected int locksHeldAtOnce() {
        return 1000;
    }

    // ---------------------------------------------------------------- fixtures

    @BeforeEach
    final void uniqueNames(TestInfo test) {
        prefix = "kit-" + Long.toString(ThreadLocalRandom.current().nextLong() >>> 24, 36) + "-"
                + test.getTestMethod().map(java.lang.reflect.Method::getName).orElse("test") + ":";
    }

    @AfterEach
    final void closeManagers() {
        RuntimeException failure = null;
        Collections.reverse(managers);
        for (LockManager manager : managers) {
            try {
                manager.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        managers.clear();
        if (failure != null) {
            throw failure;
        }
    }

    /** @return a new manager (a new node) over a new provider; closed after the test */
    protected final LockManager manager() {
        LockManager manager = buildManager(newProvider());
        managers.add(manager);
        return manager;
    }

    /** @return {@code manager}, connected to the backend (by an inspect of {@code name}) before a test times it */
    private static LockManager connected(LockManager manager, String name) {
        manager.inspect(name);
        return manager;
    }

    /** @return a lock name unique to this test run */
    protected final String name(String suffix) {
        return prefix + suffix;
    }

    @Override
    public final LockManager nodeOver(java.util.function.UnaryOperator<LockProvider> wrap) {
        LockManager manager = buildManager(wrap.apply(newProvider()));
        managers.add(manager);
        return manager;
    }

    @Override
    public final String uniqueName(String suffix) {
        return name(suffix);
    }

    @Override
    public final boolean backendRecordsTheHolder() {
        return inspectShowsTheHolder();
    }

    // ---------------------------------------------------------------- mutual exclusion and fencing

    @Test
    void mutualExclusionAcrossTwoJvms(@TempDir Path dir) throws Exception {
        String name = name("counter");
        Path counter = dir.resolve("counter");
        Files.writeString(counter, "0", StandardCharsets.US_ASCII);
        List<String> problems = new ArrayList<>();
        List<ChildJvm> jvms = new ArrayList<>();
        try {
            for (int i = 1; i <= JVMS; i++) {
                String label = "JVM-" + i;
                jvms.add(ChildJvm.start(label, dir, recipe(), "count", name, counter.toString(),
                        dir.resolve(label + ".sections").toString(), String.valueOf(MANAGERS_PER_JVM),
                        String.valueOf(THREADS_PER_JVM), String.valueOf(INCREMENTS_PER_THREAD)));
            }
            for (ChildJvm jvm : jvms) {
                jvm.expectLine(ChildWorker.READY, JVM_START);
            }
            for (ChildJvm jvm : jvms) {
                jvm.send(ChildWorker.GO);
            }
            for (ChildJvm jvm : jvms) {
                try {
                    jvm.awaitSuccess(JVM_RUN);
                } catch (AssertionError e) {
                    problems.add(e.getMessage());
                }
            }
        } finally {
            jvms.forEach(ChildJvm::close);
        }

        List<List<Section>> byJvm = new ArrayList<>();
        for (ChildJvm jvm : jvms) {
            byJvm.add(Section.load(jvm.toString(), dir.resolve(jvm + ".sections")));
        }
        List<Section> sections = byJvm.stream().flatMap(List::stream).toList();
        Section.violations(sections).forEach(v -> problems.add("critical sections of '" + name + "': " + v));
        int increments = JVMS * THREADS_PER_JVM * INCREMENTS_PER_THREAD;
        if (problems.isEmpty()) {
            assertThat(sections).as("critical sections recorded by %d JVMs x %d threads x %d increments",
                    JVMS, THREADS_PER_JVM, INCREMENTS_PER_THREAD).hasSize(increments);
            assertThat(Section.interleaved(byJvm.get(0), byJvm.get(1)))
                    .as("the two JVMs contended (their runs overlapped in time), else this test proves nothing").isTrue();
            assertThat(Files.readString(counter, StandardCharsets.US_ASCII).trim())
                    .as("unsynchronised counter after %d increments under '%s' (fewer: a lost update, two holders at once)",
                            increments, name)
                    .isEqualTo(String.valueOf(increments));
        } else {
            fail(problems.size() + " problem(s) with " + JVMS + " JVMs incrementing a counter under '" + name + "':\n"
                    + String.join("\n", problems.subList(0, Math.min(problems.size(), 20))));
        }
    }

    @Test
    void fencingTokensIncreaseAcrossHoldersAndStayOnReentry() throws Exception {
        String name = name("fenced");
        List<LockManager> nodes = List.of(manager(), manager(), manager());
        long last = Long.MIN_VALUE;
        String lastHolder = "nobody";
        for (int round = 0; round < 3; round++) {
            for (int node = 0; node < nodes.size(); node++) {
                LockManager manager = nodes.get(node);
                String holder = "node " + node + " round " + round;
                long token;
                try (LockHandle handle = manager.acquire(name, LockOptions.defaults().withWait(PATIENCE))) {
                    token = handle.fencingToken();
                    try (LockHandle again = manager.acquire(name)) {
                        assertThat(again.fencingToken()).as("token of %s on reentry", holder).isEqualTo(token);
                    }
                }
                assertThat(token).as("token of %s, after %s had %d", holder, lastHolder, last).isGreaterThan(last);
                last = token;
                lastHolder = holder;
            }
        }
        LockManager shared = nodes.get(0);
        for (int thread = 0; thread < 3; thread++) {
            String holder = "thread " + thread + " of node 0";
            long token = inNewThread(holder, () -> {
                try (LockHandle handle = shared.acquire(name, LockOptions.defaults().withWait(PATIENCE))) {
                    return handle.fencingToken();
                }
            });
            assertThat(token).as("token of %s, after %s had %d", holder, lastHolder, last).isGreaterThan(last);
            last = token;
            lastHolder = holder;
        }
    }

    // ---------------------------------------------------------------- reentry and release

    @Test
    void reentryCountsUpAndOnlyTheLastReleaseFreesTheLock() throws Exception {
        String name = name("reentrant");
        LockManager owner = manager();
        LockManager other = manager();
        LockHandle first = owner.acquire(name);
        LockHandle second = owner.acquire(name, LockOptions.defaults().withWait(Duration.ZERO));
        LockHandle third = owner.tryAcquire(name).orElseThrow(() -> new AssertionError("tryAcquire refused reentry"));
        LockHandle fourth = owner.acquireAsync(name).toCompletableFuture().get(PATIENCE.toMillis(), MILLISECONDS);
        long token = first.fencingToken();
        for (LockHandle h : List.of(second, third, fourth)) {
            assertThat(h.fencingToken()).as("token of reentrant %s", h).isEqualTo(token);
        }
        assertThat(first.holdCount()).as("hold count after four acquires").isEqualTo(4);

        List<LockHandle> innerFirst = List.of(fourth, third, second);
        for (int i = 0; i < innerFirst.size(); i++) {
            innerFirst.get(i).release();
            assertThat(first.holdCount()).as("hold count after %d releases", i + 1).isEqualTo(3 - i);
            assertHeldElsewhere(other, name, "while the owner still holds it " + (3 - i) + " time(s)");
        }
        assertThatThrownBy(second::release).as("releasing a handle twice").isInstanceOf(LockNotHeldException.class);
        assertThatThrownBy(() -> inNewThread("not-the-owner", () -> {
            owner.asLock(name).unlock();
            return null;
        })).as("unlock by a thread that does not hold '%s'", name).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(() -> other.asLock(name).unlock()).as("unlock through a manager that does not hold '%s'", name)
                .isInstanceOf(IllegalMonitorStateException.class);
        assertHeldElsewhere(other, name, "after refused releases by non-owners");
        assertThat(first.isValid()).as("the owner's handle after refused releases by non-owners").isTrue();

        first.release();
        assertThat(first.isValid()).as("a released handle").isFalse();
        first.close();
        try (LockHandle next = other.tryAcquire(name, PATIENCE).orElseThrow(
                () -> new AssertionError("'" + name + "' not free after the last release"))) {
            assertThat(next.fencingToken()).as("token of the next holder").isGreaterThan(token);
        }
        assertThatThrownBy(() -> owner.asLock(name).unlock()).as("unlock of a lock released by its handles")
                .isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void lockViewIsReentrantAndExcludesOtherNodes() throws Exception {
        String name = name("view");
        LockManager owner = manager();
        LockManager other = manager();
        Lock lock = owner.asLock(name);
        lock.lock();
        assertThat(lock.tryLock()).as("reentrant tryLock").isTrue();
        assertThat(other.asLock(name).tryLock()).as("tryLock of '%s' by another node while held", name).isFalse();
        assertThat(other.asLock(name).tryLock(SHORT_WAIT.toMillis(), MILLISECONDS)).as("timed tryLock by another node").isFalse();
        lock.unlock();
        assertHeldElsewhere(other, name, "after one of two unlocks");
        lock.unlock();
        assertThatThrownBy(lock::unlock).as("a third unlock after two locks").isInstanceOf(IllegalMonitorStateException.class);
        Lock otherLock = other.asLock(name);
        assertThat(otherLock.tryLock(PATIENCE.toMillis(), MILLISECONDS)).as("'%s' after the owner unlocked twice", name).isTrue();
        otherLock.unlock();
    }

    // ---------------------------------------------------------------- waiting

    @Test
    void tryAcquireReturnsEmptyAtOnceWhenHeld() throws Exception {
        String name = name("busy");
        LockManager holder = manager();
        LockManager other = connected(manager(), name);
        try (LockHandle held = holder.acquire(name)) {
            for (int attempt = 0; attempt < 3; attempt++) {
                long start = System.nanoTime();
                Optional<LockHandle> got = other.tryAcquire(name);
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                got.ifPresent(LockHandle::release);
                assertThat(got).as("tryAcquire of '%s' held by another node with token %d", name, held.fencingToken()).isEmpty();
                assertThat(took).as("time tryAcquire of a held lock took (it must not wait)").isLessThan(AT_ONCE);
            }
            assertThat(other.tryAcquire(name, Duration.ZERO)).as("tryAcquire with a zero wait").isEmpty();
            assertThat(other.tryAcquire(name, LockOptions.defaults().withWait(Duration.ZERO))).as("tryAcquire with zero-wait options").isEmpty();
            assertThat(inNewThread("same-node-other-thread", () -> holder.tryAcquire(name)))
                    .as("tryAcquire by another thread of the holding node").isEmpty();
            assertThat(held.isValid()).as("the holder's handle").isTrue();
        }
    }

    @Test
    void timedWaitsEndWithinTheirBound() {
        String name = name("timed");
        LockManager holder = manager();
        LockManager other = connected(manager(), name);
        try (LockHandle held = holder.acquire(name)) {
            long start = System.nanoTime();
            Optional<LockHandle> got = other.tryAcquire(name, SHORT_WAIT);
            assertWaitedAbout(start, SHORT_WAIT, "tryAcquire(" + SHORT_WAIT + ")");
            assertThat(got).as("tryAcquire(%s) of '%s' held by token %d", SHORT_WAIT, name, held.fencingToken()).isEmpty();

            long start2 = System.nanoTime();
            assertThatThrownBy(() -> other.acquire(name, LockOptions.defaults().withWait(SHORT_WAIT)))
                    .as("acquire with a wait of %s of a held lock", SHORT_WAIT)
                    .isInstanceOfSatisfying(LockTimeoutException.class, e -> {
                        assertThat(e.lockName()).isEqualTo(name);
                        assertThat(e.waited()).isEqualTo(SHORT_WAIT);
                    });
            assertWaitedAbout(start2, SHORT_WAIT, "acquire with wait " + SHORT_WAIT);
            assertThat(held.isValid()).as("the holder's handle after others timed out").isTrue();
        }
    }

    @Test
    void asyncAcquireCompletesWhenTheHolderReleasesAndNotBefore() throws Exception {
        String name = name("async");
        LockManager holder = manager();
        LockManager waiter = manager();
        LockHandle held = holder.acquire(name);
        CompletableFuture<LockHandle> pending = waiter.acquireAsync(name, LockOptions.defaults().withWait(PATIENCE))
                .toCompletableFuture();
        CompletableFuture<Long> grantedAt = pending.thenApply(h -> System.nanoTime());
        assertThatThrownBy(() -> pending.get(SHORT_WAIT.toMillis(), MILLISECONDS))
                .as("acquireAsync of '%s' while another node holds it with token %d", name, held.fencingToken())
                .isInstanceOf(TimeoutException.class);
        long releasedAt = System.nanoTime();
        held.release();
        LockHandle granted = pending.get(PATIENCE.toMillis(), MILLISECONDS);
        assertThat(granted.fencingToken()).as("token granted after the holder's %d", held.fencingToken())
                .isGreaterThan(held.fencingToken());
        assertThat(grantedAt.get(PATIENCE.toMillis(), MILLISECONDS) - releasedAt).as("ns from the start of the release to the async grant").isPositive();
        granted.release();

        try (LockHandle free = waiter.acquireAsync(name("free"), LockOptions.defaults().withWait(Duration.ZERO))
                .toCompletableFuture().get(PATIENCE.toMillis(), MILLISECONDS)) {
            assertThat(free.isValid()).as("async grant of a free lock").isTrue();
        }
    }

    /**
     * Cancelling the future of an acquireAsync ends its attempt, also one that blocks in the backend (a row lock, an
     * advisory lock, a queue): the attempt does not sit out the rest of its wait, holding a connection.
     */
    @Test
    void cancellingAnAsyncAcquireEndsItsAttemptBlockedInTheBackend() throws Exception {
        String name = name("async-cancel");
        LockManager holder = manager();
        CountDownLatch attempting = new CountDownLatch(1);
        CountDownLatch attemptEnded = new CountDownLatch(1);
        LockManager waiter = nodeOver(p -> new ForwardingProvider(p) {
            @Override
            public Attempt tryAcquire(LockRequest request) {
                attempting.countDown();
                try {
                    return super.tryAcquire(request);
                } finally {
                    attemptEnded.countDown();
                }
            }
        });
        try (LockHandle held = holder.acquire(name)) {
            CompletableFuture<LockHandle> pending = waiter.acquireAsync(name, LockOptions.defaults().withWait(PATIENCE))
                    .toCompletableFuture();
            assertThat(attempting.await(PATIENCE.toMillis(), MILLISECONDS)).as("the async waiter's first attempt started").isTrue();
            pending.cancel(true);
            assertThat(attemptEnded.await(SLACK.toMillis(), MILLISECONDS))
                    .as("the attempt of the cancelled acquireAsync of '%s' (wait %s) ended", name, PATIENCE).isTrue();
            assertThat(held.isValid()).as("the holder's handle").isTrue();
        }
        try (LockHandle next = waiter.acquire(name, LockOptions.defaults().withWait(PATIENCE))) {
            assertThat(next.isValid()).as("the cancelled waiter's node acquires once the holder released").isTrue();
        }
    }

    @Test
    void asyncAcquireWithAShortWaitFailsWithTimeout() throws Exception {
        String name = name("async-timeout");
        LockManager holder = manager();
        LockManager waiter = connected(manager(), name);
        try (LockHandle held = holder.acquire(name)) {
            long start = System.nanoTime();
            CompletableFuture<LockHandle> pending = waiter.acquireAsync(name, LockOptions.defaults().withWait(SHORT_WAIT))
                    .toCompletableFuture();
            CompletableFuture<Long> endedAt = pending.handle((h, e) -> System.nanoTime());
            assertThatThrownBy(() -> pending.get(PATIENCE.toMillis(), MILLISECONDS))
                    .as("acquireAsync with a wait of %s of '%s' held by token %d", SHORT_WAIT, name, held.fencingToken())
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(LockTimeoutException.class);
            Duration took = Duration.ofNanos(endedAt.get(PATIENCE.toMillis(), MILLISECONDS) - start);
            assertThat(took).as("time until acquireAsync(wait %s) failed", SHORT_WAIT)
                    .isGreaterThanOrEqualTo(SHORT_WAIT).isLessThan(SHORT_WAIT.plus(SLACK));
            assertThat(held.isValid()).as("the holder's handle").isTrue();
            assertHeldElsewhere(waiter, name, "after the async waiter gave up");
        }
    }

    // ---------------------------------------------------------------- holders that die or stall

    @Test
    void lockOfAHolderJvmKilledWithSigkillIsFreedAfterItsLease(@TempDir Path dir) {
        String name = name("killed");
        Duration lease = Duration.ofSeconds(2);
        LockManager survivor = manager();
        long deadToken;
        String deadOwner;
        try (ChildJvm holder = ChildJvm.start("holder JVM", dir, recipe(), "hold", name, String.valueOf(lease.toMillis()))) {
            String[] line = holder.expectLine(ChildWorker.HOLDING, JVM_START).substring(ChildWorker.HOLDING.length()).trim().split(" ");
            deadToken = Long.parseLong(line[0]);
            deadOwner = line[1];
            assertHeldElsewhere(survivor, name, "while the holder JVM lives with token " + deadToken);
            holder.kill();
        }
        Duration wait = releaseAfterHolderDeath(lease).plus(SLACK).plus(SLACK);
        LockHandle next;
        try {
            next = survivor.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE).withWait(wait));
        } catch (LockTimeoutException e) {
            throw new AssertionError("'" + name + "' still held " + wait + " after its holder JVM (token " + deadToken
                    + ", lease " + lease + ") was killed with kill -9", e);
        }
        assertThat(next.fencingToken()).as("token after the killed holder's %d", deadToken).isGreaterThan(deadToken);
        Optional<Grant> dead = grantOfADeadHolder(name, deadToken, deadOwner);
        if (dead.isPresent()) {
            try (LockProvider provider = newProvider()) {
                assertThatThrownBy(() -> provider.release(dead.get()))
                        .as("late release by the killed holder %s (token %d) after token %d was granted", deadOwner, deadToken,
                                next.fencingToken())
                        .isInstanceOf(LockNotHeldException.class);
                assertThatThrownBy(() -> provider.renew(dead.get(), lease)).as("late renewal by the killed holder")
                        .isInstanceOf(LockNotHeldException.class);
            }
            assertThat(next.isValid()).as("the survivor's handle after the dead holder's refused release").isTrue();
            assertHeldElsewhere(manager(), name, "after the dead holder's refused release; the survivor has token "
                    + next.fencingToken());
            assertShowsHeld(survivor.inspect(name), name, next.fencingToken(), "after the dead holder's refused release");
        }
        next.release();
    }

    @Test
    void staleHolderLosesTheLockAndItsLateReleaseIsRefused() throws Exception {
        String name = name("stale");
        Duration lease = Duration.ofSeconds(1);
        LockManager staleNode = manager();
        LockManager freshNode = manager();
        LockHandle stale = staleNode.acquire(name,
                LockOptions.defaults().withScope(LockScope.LEASE).withLease(lease).withAutoRenew(false));
        CountDownLatch lost = new CountDownLatch(1);
        stale.onLost(lost::countDown);
        assertThat(lost.await(lease.plus(PATIENCE).toMillis(), MILLISECONDS))
                .as("onLost of '%s' (token %d, lease %s, no renewal)", name, stale.fencingToken(), lease).isTrue();
        assertThat(stale.isValid()).as("handle whose lease ran out").isFalse();

        LockHandle fresh = freshNode.tryAcquire(name, PATIENCE).orElseThrow(() -> new AssertionError(
                "'" + name + "' not free after its lease of " + lease + " ran out"));
        assertThat(fresh.fencingToken()).as("token after the stale holder's %d", stale.fencingToken())
                .isGreaterThan(stale.fencingToken());
        assertThatThrownBy(stale::release).as("late release by the stale holder (token %d)", stale.fencingToken())
                .isInstanceOf(LockNotHeldException.class);
        assertThatThrownBy(() -> stale.extend(lease)).as("late extend by the stale holder").isInstanceOf(LockNotHeldException.class);
        assertThat(fresh.isValid()).as("the new holder after the stale release").isTrue();
        assertHeldElsewhere(staleNode, name, "after the stale holder's late release; the new holder has token "
                + fresh.fencingToken());
        assertShowsHeld(freshNode.inspect(name), name, fresh.fencingToken(), "after the stale release");
        fresh.release();
    }

    /**
     * The provider's own owner and token check, which the core relies on when it releases a grant it lost in the
     * background: a late release or renewal of a grant that another owner has since taken is refused and leaves
     * the new holder's lock alone.
     */
    @Test
    void providerRefusesReleaseAndRenewOfAGrantItNoLongerHolds() throws Exception {
        String name = name("spi-stale");
        try (LockProvider first = newProvider(); LockProvider second = newProvider()) {
            Grant released = grant(first, name, "first", Duration.ofSeconds(30));
            first.release(released);
            Grant taken = grant(second, name, "second", Duration.ofSeconds(30));
            assertThat(taken.fencingToken()).as("token after %d was released", released.fencingToken())
                    .isGreaterThan(released.fencingToken());
            assertThatThrownBy(() -> first.renew(released, Duration.ofSeconds(30)))
                    .as("renewal of a released grant (token %d) that another owner took", released.fencingToken())
                    .isInstanceOf(LockNotHeldException.class);
            assertStaleRefused(first, released, second, taken, "a second release of a released grant");
            second.release(taken);

            Duration lease = Duration.ofMillis(300);
            Grant expiring = grant(first, name, "first-again", lease);
            if (expiring.leased() && backendExpiresLeases()) {
                Grant next = org.awaitility.Awaitility.await("'" + name + "' free after an unrenewed lease of " + lease)
                        .pollInSameThread().pollInterval(Duration.ofMillis(50)).atMost(lease.plus(PATIENCE))
                        .until(() -> attempt(second, name, "second-again", Duration.ofSeconds(30)), Attempt::isGranted)
                        .grant();
                assertThat(next.fencingToken()).as("token after the expired %d", expiring.fencingToken())
                        .isGreaterThan(expiring.fencingToken());
                assertThatThrownBy(() -> first.renew(expiring, Duration.ofSeconds(30)))
                        .as("renewal of an expired grant (token %d) that another owner took", expiring.fencingToken())
                        .isInstanceOf(LockNotHeldException.class);
                assertStaleRefused(first, expiring, second, next, "release of an expired grant");
                second.release(next);
            } else {
                first.release(expiring);
            }
        }
    }

    private void assertStaleRefused(LockProvider stale, Grant old, LockProvider holder, Grant current, String what) {
        assertThatThrownBy(() -> stale.release(old)).as("%s (token %d) after token %d was granted", what,
                old.fencingToken(), current.fencingToken()).isInstanceOf(LockNotHeldException.class);
        assertShowsHeld(holder.inspect(current.name()), current.name(), current.fencingToken(), "after the refused " + what);
        assertThat(attempt(stale, current.name(), "third", Duration.ofSeconds(30)).isGranted())
                .as("'%s' granted to a third owner after the refused %s", current.name(), what).isFalse();
    }

    private Attempt attempt(LockProvider provider, String name, String owner, Duration lease) {
        return provider.tryAcquire(new LockRequest(name, new LockOwner("kit-host", prefix + owner, "spi"), lease,
                Duration.ZERO, false, GrantListener.NONE));
    }

    private Grant grant(LockProvider provider, String name, String owner, Duration lease) {
        Attempt attempt = attempt(provider, name, owner, lease);
        assertThat(attempt.isGranted()).as("one attempt of %s at free '%s'", owner, name).isTrue();
        return attempt.grant();
    }

    @Test
    void renewalKeepsTheLockAcrossManyLeasesWithTheSameToken() {
        String name = name("renewed");
        Duration lease = Duration.ofMillis(1200);
        LockManager holder = manager();
        LockManager other = manager();
        LockHandle held = holder.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE).withLease(lease));
        long token = held.fencingToken();
        keepsHolding(other, held, lease.multipliedBy(3), "renewed every third of its " + lease + " lease");
        assertThat(held.fencingToken()).as("token after renewals").isEqualTo(token);
        held.release();
        assertThat(other.tryAcquire(name, PATIENCE)).as("'%s' after release", name)
                .hasValueSatisfying(h -> {
                    assertThat(h.fencingToken()).isGreaterThan(token);
                    h.release();
                });
    }

    @Test
    void extendPushesTheLeaseOfAnUnrenewedLock() {
        String name = name("extended");
        Duration lease = Duration.ofSeconds(1);
        LockManager holder = manager();
        LockManager other = manager();
        LockHandle held = holder.acquire(name,
                LockOptions.defaults().withScope(LockScope.LEASE).withLease(lease).withAutoRenew(false));
        Instant before = held.expiresAt();
        held.extend(PATIENCE);
        if (before != null) {
            assertThat(held.expiresAt()).as("expiresAt after extend(%s)", PATIENCE).isAfter(before);
        }
        keepsHolding(other, held, lease.plusMillis(700), "extended to " + PATIENCE + " beyond its lease of " + lease);
        held.release();
    }

    /** Probes, for {@code period}, that {@code held} stays valid and with its token while {@code other} cannot take it. */
    private void keepsHolding(LockManager other, LockHandle held, Duration period, String how) {
        long start = System.nanoTime();
        org.awaitility.Awaitility.await("'" + held.name() + "' held for " + period)
                .pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(100))
                .atMost(period.plus(PATIENCE))
                .until(() -> {
                    Duration at = Duration.ofNanos(System.nanoTime() - start);
                    assertHeldElsewhere(other, held.name(), at + " after the holder acquired it, " + how);
                    assertThat(held.isValid()).as("holder's handle %s after acquire, %s", at, how).isTrue();
                    assertShowsHeld(other.inspect(held.name()), held.name(), held.fencingToken(), at + " after acquire");
                    return at.compareTo(period) >= 0;
                });
    }

    @Test
    void closingAManagerReleasesItsLeaseLocks() throws Exception {
        LockManager closing = buildManager(newProvider());
        LockManager other = manager();
        List<String> names = List.of(name("a"), name("b"), name("c"));
        List<LockHandle> handles = new ArrayList<>();
        try {
            for (String name : names) {
                handles.add(closing.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE)));
            }
            handles.add(closing.acquire(names.get(0)));
            handles.add(inNewThread("closing-node-thread", () -> closing.acquire(name("d"))));
        } finally {
            closing.close();
        }
        for (LockHandle h : handles) {
            assertThat(h.isValid()).as("%s after its manager closed", h).isFalse();
        }
        for (String name : List.of(names.get(0), names.get(1), names.get(2), name("d"))) {
            assertThat(other.tryAcquire(name, PATIENCE)).as("'%s' after its holder's manager closed", name)
                    .hasValueSatisfying(LockHandle::release);
        }
    }

    // ---------------------------------------------------------------- backend failures

    @Test
    void unreachableBackendFailsWithBackendExceptionNeverTimeoutOrEmpty() {
        String name = name("unreachable");
        LockManager broken = buildManager(newUnreachableProvider());
        managers.add(broken);
        assertThatThrownBy(() -> broken.acquire(name, LockOptions.defaults().withWait(SHORT_WAIT)))
                .as("acquire on an unreachable backend").isInstanceOf(LockBackendException.class);
        assertThatThrownBy(() -> broken.tryAcquire(name)).as("tryAcquire on an unreachable backend")
                .isInstanceOf(LockBackendException.class);
        assertThatThrownBy(() -> broken.tryAcquire(name, SHORT_WAIT)).as("tryAcquire(%s) on an unreachable backend", SHORT_WAIT)
                .isInstanceOf(LockBackendException.class);
        assertThatThrownBy(() -> broken.inspect(name)).as("inspect on an unreachable backend")
                .isInstanceOf(LockBackendException.class);
        assertThatThrownBy(() -> broken.acquireAsync(name, LockOptions.defaults().withWait(SHORT_WAIT))
                .toCompletableFuture().get(PATIENCE.toMillis(), MILLISECONDS))
                .as("acquireAsync on an unreachable backend").isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(LockBackendException.class);
    }

    // ---------------------------------------------------------------- names and inspection

    @Test
    void namesAreDataEveryStringIsItsOwnLock() {
        LockManager holder = manager();
        LockManager other = manager();
        List<List<String>> families = List.of(
                List.of("x'; DROP TABLE method_lock; --", "' OR '1'='1", "it's", "\"double quoted\""),
                List.of("back\\slash", "two\\\\backslashes", "tab\tinside", "line\nbreak"),
                List.of("a/b/c", "/leading-slash", "trailing-slash/", "/"),
                List.of(".", "..", "zookeeper", "-"),
                List.of("100%", "%", "_", "*"),
                List.of("a_c", "abc", "a%c", "?"),
                List.of("{hash-tag}", "${expression}", "#{order.number}", "<tag attr=\"v\">&amp;</tag>"),
                List.of("null", "NULL", "0", "-1"),
                List.of("Order", "order", "ORDER"),
                List.of("Straße", "STRASSE", "strasse"),
                List.of("é", "e\u0301", "e", "E"),
                List.of("日本語のロック", "🔒lock🔑", "a b", "ctrl\u0001char"),
                List.of("semi;colon", "comma,separated", "colon:separated", prefix + "namespaced"));
        List<String> all = families.stream().flatMap(List::stream).toList();
        assertThat(new java.util.HashSet<>(all)).as("the kit's names are distinct strings").hasSameSizeAs(all);
        int atOnce = Math.max(4, locksHeldAtOnce() - 2);
        List<String> chunk = new ArrayList<>();
        for (List<String> family : families) {
            if (chunk.size() + family.size() > atOnce) {
                assertDistinctLocks(holder, other, chunk);
                chunk.clear();
            }
            chunk.addAll(family);
        }
        assertDistinctLocks(holder, other, chunk);
    }

    /** Holds all {@code names} at once, then frees them one by one: each must be free while the others are held. */
    private void assertDistinctLocks(LockManager holder, LockManager other, List<String> names) {
        List<LockHandle> handles = new ArrayList<>();
        for (String name : names) {
            Optional<LockHandle> handle = holder.tryAcquire(name);
            assertThat(handle).as("%s while the same node holds %s: refused means the backend treats it as one of"
                    + " them", quoted(name), handles.stream().map(h -> quoted(h.name())).toList()).isPresent();
            handles.add(handle.get());
        }
        for (LockHandle h : handles) {
            assertHeldElsewhere(other, h.name(), "while held by another node");
            assertShowsHeld(other.inspect(h.name()), h.name(), h.fencingToken(), "held by another node");
        }
        for (LockHandle h : handles) {
            h.release();
            Optional<LockHandle> taken = other.tryAcquire(h.name());
            assertThat(taken).as("%s after its release, while %s are still held: if it is refused, the backend treats"
                    + " it as one of them", quoted(h.name()), names.subList(names.indexOf(h.name()) + 1, names.size())
                    .stream().map(KitAssertions::quoted).toList()).isPresent();
            taken.get().release();
        }
    }

    @Test
    void longestNamesWorkIncludingSupplementaryCharacters() {
        LockManager holder = manager();
        LockManager other = manager();
        String ascii = fill(prefix, "n", 255);
        String emoji = fill(prefix, "😀", 255);
        String cjk = fill(prefix, "語", 255);
        String emojiTwin = emoji.substring(0, emoji.length() - 2) + "😁";
        for (String name : List.of(ascii, emoji, cjk, emojiTwin)) {
            assertThat(name.codePointCount(0, name.length())).isEqualTo(255);
        }
        List<LockHandle> handles = new ArrayList<>();
        for (String name : List.of(ascii, emoji, cjk)) {
            LockHandle h = holder.acquire(name);
            handles.add(h);
            assertHeldElsewhere(other, name, "a name of 255 code points");
            assertShowsHeld(other.inspect(name), name, h.fencingToken(), "(255 code points) held by another node");
        }
        assertThat(other.tryAcquire(emojiTwin)).as("a 255-code-point name differing from a held one only in its last"
                + " character (a backend that truncates merges them)").hasValueSatisfying(LockHandle::release);
        handles.forEach(LockHandle::release);
        assertThat(other.tryAcquire(emoji)).as("the emoji name after release").hasValueSatisfying(LockHandle::release);
    }

    @Test
    void inspectShowsOwnerTokenAndHoldCountOfAHeldLockAndEmptyWhenFree() {
        String name = name("inspected");
        LockManager owner = manager();
        LockManager other = manager();
        assertThat(other.inspect(name)).as("inspect of a never used name").isEmpty();
        LockHandle first = owner.acquire(name);
        assertThat(other.inspect(name)).as("inspect of '%s' by another node", name).hasValueSatisfying(info ->
                assertHolder(info, name, owner, first.fencingToken(), 1, false));
        LockHandle second = owner.acquire(name);
        assertThat(owner.inspect(name)).as("inspect by the owner after reentry").hasValueSatisfying(info ->
                assertHolder(info, name, owner, first.fencingToken(), 2, true));
        second.release();
        assertThat(owner.inspect(name)).as("inspect by the owner after one release").hasValueSatisfying(info ->
                assertHolder(info, name, owner, first.fencingToken(), 1, true));
        first.release();
        assertThat(other.inspect(name)).as("inspect by another node after the last release").isEmpty();
        assertThat(owner.inspect(name)).as("inspect by the former owner after the last release").isEmpty();
    }

    /** @param byOwner the owner's own manager inspected: it knows its holder even where the backend cannot show it */
    private void assertHolder(LockInfo info, String name, LockManager owner, long token, int holds, boolean byOwner) {
        assertThat(info.name()).as("name").isEqualTo(name);
        if (!byOwner && !inspectShowsTheHolder()) {
            return;
        }
        assertThat(info.ownerId()).as("owner id").contains(owner.instanceId());
        assertThat(info.ownerHost()).as("owner host").isNotBlank();
        assertThat(info.fencingToken()).as("token").isEqualTo(token);
        assertThat(info.holdCount()).as("hold count").isEqualTo(holds);
        if (info.since() != null && info.until() != null) {
            assertThat(info.until()).as("lease end").isAfter(info.since());
        }
    }

    @Test
    void aThousandNamesHeldAtOnceByOneManager() {
        LockManager holder = manager();
        LockManager other = manager();
        int count = Math.min(1000, locksHeldAtOnce() - 2);
        int step = Math.max(1, count / 10);
        List<LockHandle> handles = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            handles.add(holder.acquire(name("bulk-" + i)));
        }
        for (int i = 0; i < count; i += step) {
            assertHeldElsewhere(other, name("bulk-" + i), "one of " + count + " names held at once");
        }
        for (LockHandle h : handles) {
            assertThat(h.isValid()).as("%s among %d held", h, count).isTrue();
            h.release();
        }
        for (int i = 0; i < count; i += step) {
            assertThat(other.tryAcquire(name("bulk-" + i))).as("'bulk-%d' after releasing all %d", i, count)
                    .hasValueSatisfying(LockHandle::release);
        }
    }

    // ---------------------------------------------------------------- bad input

    @Test
    void invalidNamesAreRefusedWithAMessageNamingTheProblem() {
        LockManager manager = manager();
        String tooLong = fill(prefix, "n", 256);
        String tooLongEmoji = fill(prefix, "😀", 256);
        Object[][] cases = {
                {null, "null"}, {"", "blank"}, {"   ", "blank"}, {"\t\n", "blank"},
                {tooLong, "255"}, {tooLongEmoji, "255"},
                {"a\u0000b", "NUL"}, {"a\uD800b", "surrogate"}, {"\uDC00b", "surrogate"}, {"ab\uD83D", "surrogate"},
                {" leading", "whitespace"}, {"trailing ", "whitespace"}, {"tab\t", "whitespace"},
                {"\nnewline", "whitespace"}, {"em-space\u2003", "whitespace"},
        };
        for (Object[] c : cases) {
            String name = (String) c[0];
            String problem = (String) c[1];
            String shown = name == null ? "null" : quoted(name.length() > 50 ? name.substring(0, 50) + "…" : name);
            List<KitAssertions.ThrowingCall> calls = List.of(
                    () -> manager.acquire(name),
                    () -> manager.acquire(name, LockOptions.defaults()),
                    () -> manager.tryAcquire(name),
                    () -> manager.tryAcquire(name, Duration.ZERO),
                    () -> manager.tryAcquire(name, LockOptions.defaults()),
                    () -> manager.acquireAsync(name),
                    () -> manager.acquireAsync(name, LockOptions.defaults()),
                    () -> manager.inspect(name),
                    () -> manager.asLock(name));
            for (int i = 0; i < calls.size(); i++) {
                assertRefused(calls.get(i), IllegalArgumentException.class, "name " + shown + " (call " + i + ")", "name", problem);
            }
        }
    }

    @Test
    void invalidOptionsAreRefusedWithAMessageNamingTheProblem() {
        LockManager manager = manager();
        String name = name("options");
        LockOptions defaults = LockOptions.defaults();
        assertRefused(() -> manager.acquire(name, null), IllegalArgumentException.class, "acquire with null options", "options");
        assertRefused(() -> manager.tryAcquire(name, (LockOptions) null), IllegalArgumentException.class, "tryAcquire with null options", "options");
        assertRefused(() -> manager.acquireAsync(name, null), IllegalArgumentException.class, "acquireAsync with null options", "options");
        assertRefused(() -> manager.tryAcquire(name, (Duration) null), IllegalArgumentException.class, "tryAcquire with a null wait", "wait");
        assertRefused(() -> manager.tryAcquire(name, Duration.ofMillis(-1)), IllegalArgumentException.class, "tryAcquire with a negative wait", "wait");
        assertRefused(() -> defaults.withWait(Duration.ofNanos(-1)), IllegalArgumentException.class, "a negative wait", "wait");
        assertRefused(() -> defaults.withWait(null), IllegalArgumentException.class, "a null wait", "wait");
        assertRefused(() -> defaults.withLease(Duration.ZERO), IllegalArgumentException.class, "a zero lease", "lease", "1 ms");
        assertRefused(() -> defaults.withLease(Duration.ofNanos(999_999)), IllegalArgumentException.class, "a lease under 1 ms", "lease", "1 ms");
        assertRefused(() -> defaults.withLease(Duration.ofSeconds(-5)), IllegalArgumentException.class, "a negative lease", "lease");
        assertRefused(() -> defaults.withLease(null), IllegalArgumentException.class, "a null lease", "lease");
        assertRefused(() -> defaults.withScope(null), IllegalArgumentException.class, "a null scope", "scope");
        assertThat(defaults.withLease(Duration.ofMillis(1)).lease()).as("the shortest lease").isEqualTo(Duration.ofMillis(1));
        try (LockHandle held = manager.acquire(name)) {
            assertRefused(() -> {
                held.extend(Duration.ZERO);
                return null;
            }, IllegalArgumentException.class, "extend by zero", "lease");
            assertRefused(() -> {
                held.extend(null);
                return null;
            }, IllegalArgumentException.class, "extend by null", "lease");
            assertRefused(() -> {
                held.onLost(null);
                return null;
            }, IllegalArgumentException.class, "a null onLost listener", "listener");
        }
    }

    @Test
    void transactionScopeOutsideATransactionIsRefused() {
        LockManager manager = manager();
        LockManager other = manager();
        String name = name("no-transaction");
        LockOptions transactional = LockOptions.defaults().withScope(LockScope.TRANSACTION);
        assertRefused(() -> manager.acquire(name, transactional), IllegalStateException.class, "acquire in TRANSACTION scope", "transaction");
        assertRefused(() -> manager.tryAcquire(name, transactional), IllegalStateException.class, "tryAcquire in TRANSACTION scope", "transaction");
        assertRefused(() -> manager.acquireAsync(name, transactional), IllegalStateException.class, "acquireAsync in TRANSACTION scope", "transaction");
        assertThat(other.tryAcquire(name)).as("'%s' after refused transactional acquires", name).hasValueSatisfying(LockHandle::release);
    }

    // ---------------------------------------------------------------- races, interrupts, closing, failures

    @Test
    void releaseFromAnotherThreadNeverLetsTheOwnerReenterALockBeingReleased() throws Exception {
        LockManager owner = manager();
        LockManager other = manager();
        String name = name("release-race");
        java.util.concurrent.ExecutorService releaser = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            for (int round = 0; round < RACE_ROUNDS; round++) {
                LockHandle first = owner.acquire(name);
                java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(2);
                java.util.concurrent.Future<?> released = releaser.submit(() -> {
                    start.await();
                    first.release();
                    return null;
                });
                start.await();
                List<LockHandle> again = new ArrayList<>();
                while (!released.isDone() || again.isEmpty()) {
                    owner.tryAcquire(name).ifPresent(again::add);
                }
                released.get(PATIENCE.toMillis(), MILLISECONDS);
                for (LockHandle h : again) {
                    assertThat(h.isValid()).as("round %d: a handle of the owner from a tryAcquire that raced the release of"
                            + " its last hold on another thread (hold count %d)", round, h.holdCount()).isTrue();
                }
                assertHeldElsewhere(other, name, "in round " + round + " while the owner's new handles are valid");
                for (LockHandle h : again) {
                    h.release();
                }
            }
        } finally {
            releaser.shutdownNow();
        }
    }

    @Test
    void leasesLongerThanTheMaximumAreRefusedAndTheLongestWorks() {
        LockManager manager = manager();
        LockManager other = manager();
        String name = name("longest-lease");
        LockOptions defaults = LockOptions.defaults();
        for (Duration tooLong : List.of(LockOptions.MAX_LEASE.plusMillis(1), Duration.ofSeconds(Long.MAX_VALUE),
                Duration.ofSeconds(Long.MAX_VALUE, 999_999_999))) {
            assertRefused(() -> defaults.withLease(tooLong), IllegalArgumentException.class, "a lease of " + tooLong, "lease", "at most");
        }
        try (LockHandle held = manager.acquire(name, defaults.withLease(LockOptions.MAX_LEASE).withScope(LockScope.LEASE))) {
            assertThat(held.isValid()).as("a lock with the longest lease").isTrue();
            assertHeldElsewhere(other, name, "while held with the longest lease");
            assertRefused(() -> {
                held.extend(Duration.ofDays(366));
                return null;
            }, IllegalArgumentException.class, "extend by 366 days", "lease", "at most");
            assertThat(held.isValid()).as("after a refused extend").isTrue();
        }
        assertThat(other.tryAcquire(name)).as("%s after the longest lease was released", quoted(name)).hasValueSatisfying(LockHandle::release);
    }

    @Test
    void aFailureAfterTheBackendGrantedGivesTheLockBack() {
        String name = name("failing-grant");
        LockManager failing = buildManager(new ForwardingProvider(newProvider()) {
            @Override
            public Attempt tryAcquire(LockRequest request) {
                Attempt attempt = delegate.tryAcquire(request);
                return attempt.isGranted() ? Attempt.granted(new FailingGrant(attempt.grant())) : attempt;
            }

            @Override
            public void renew(Grant grant, Duration lease) {
                delegate.renew(FailingGrant.real(grant), lease);
            }

            @Override
            public void release(Grant grant) {
                delegate.release(FailingGrant.real(grant));
            }

            @Override
            public void beforeCompletion(Grant grant) {
                delegate.beforeCompletion(FailingGrant.real(grant));
            }
        });
        managers.add(failing);
        LockManager other = manager();
        assertThatThrownBy(() -> failing.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE)))
                .as("an acquire whose grant fails before the handle is made").hasMessageContaining(FailingGrant.FAILURE);
        assertThat(other.tryAcquire(name, AT_ONCE)).as("%s after an acquire failed past the backend's grant", quoted(name))
                .hasValueSatisfying(LockHandle::release);
        assertThat(failing.inspect(name)).as("%s as the failed node sees it", quoted(name)).isEmpty();
    }

    @Test
    @Timeout(120)
    void anInterruptedCallerGetsLockInterruptedExceptionAtOnceAndHoldsNothing() throws Exception {
        LockManager holder = manager();
        LockManager waiter = manager();
        LockManager third = manager();
        String free = name("interrupted-free");
        assertThat(inNewThread("interrupted-before", () -> {
            Thread.currentThread().interrupt();
            try {
                waiter.acquire(free);
                return "granted";
            } catch (LockInterruptedException e) {
                return Thread.currentThread().isInterrupted() ? "interrupted, flag set" : "interrupted, flag cleared";
            }
        })).as("acquire of a free name by an interrupted thread").isEqualTo("interrupted, flag set");
        assertThat(third.tryAcquire(free, AT_ONCE)).as("%s after an interrupted acquire", quoted(free)).hasValueSatisfying(LockHandle::release);

        String name = name("interrupted-waiting");
        List<java.util.function.Function<LockManager, Object>> waits = List.of(
                m -> m.acquire(name, LockOptions.defaults().withWait(PATIENCE)),
                m -> m.tryAcquire(name, PATIENCE),
                m -> {
                    try {
                        return m.asLock(name).tryLock(PATIENCE.toMillis(), MILLISECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt(); // Lock.tryLock clears it, as j.u.c.locks.Lock says
                        throw new LockInterruptedException(name, e);
                    }
                });
        LockHandle held = holder.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE));
        for (int i = 0; i < waits.size(); i++) {
            java.util.function.Function<LockManager, Object> wait = waits.get(i);
            CompletableFuture<String> outcome = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    Object got = wait.apply(waiter);
                    outcome.complete("returned " + got);
                } catch (LockInterruptedException e) {
                    outcome.complete(Thread.currentThread().isInterrupted() ? "interrupted" : "interrupted, flag cleared");
                } catch (RuntimeException e) {
                    outcome.complete("failed: " + e);
                }
            }, "kit-interrupted-waiter-" + i);
            t.start();
            Thread.sleep(BLOCKED_IN_BACKEND.toMillis()); // not a synchronisation: the interrupt must work at any moment
            long interruptedAt = System.nanoTime();
            t.interrupt();
            assertThat(outcome.get(PATIENCE.toMillis(), MILLISECONDS)).as("wait %d after its thread was interrupted", i)
                    .isEqualTo("interrupted");
            assertThat(Duration.ofNanos(System.nanoTime() - interruptedAt)).as("time wait %d took to see its interrupt", i)
                    .isLessThan(AT_ONCE);
        }
        held.release();
        assertThat(third.tryAcquire(name, AT_ONCE)).as("%s after its interrupted waiters gave up and its holder released", quoted(name))
                .hasValueSatisfying(LockHandle::release);
    }

    @Test
    @Timeout(120)
    void closingAManagerStopsItsWaitersAndLeavesNothingLocked() throws Exception {
        LockManager holder = manager();
        LockManager closing = buildManager(newProvider());
        managers.add(closing);
        LockManager third = manager();
        String name = name("closed-while-waiting");
        LockHandle held = holder.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE));
        CompletableFuture<String> outcome = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                LockHandle got = closing.acquire(name, LockOptions.defaults().withWait(PATIENCE));
                outcome.complete("granted, valid " + got.isValid());
            } catch (IllegalStateException e) {
                outcome.complete("refused: closed");
            } catch (RuntimeException e) {
                outcome.complete("failed: " + e);
            }
        }, "kit-waiter-of-a-closing-manager");
        t.start();
        CompletionStage<LockHandle> async = closing.acquireAsync(name(("closed-while-waiting-async")),
                LockOptions.defaults().withWait(PATIENCE).withScope(LockScope.LEASE));
        Thread.sleep(BLOCKED_IN_BACKEND.toMillis()); // not a synchronisation: closing must work at any moment
        long closedAt = System.nanoTime();
        closing.close();
        assertThat(outcome.get(PATIENCE.toMillis(), MILLISECONDS)).as("a waiter of the manager that closed").isEqualTo("refused: closed");
        assertThat(Duration.ofNanos(System.nanoTime() - closedAt)).as("time the waiter took to see the close").isLessThan(AT_ONCE);
        assertRefused(() -> closing.acquire(name), IllegalStateException.class, "acquire on a closed manager", "closed");
        assertRefused(() -> closing.tryAcquire(name), IllegalStateException.class, "tryAcquire on a closed manager", "closed");
        assertRefused(() -> closing.inspect(name), IllegalStateException.class, "inspect on a closed manager", "closed");
        assertRefused(() -> closing.acquireAsync(name), IllegalStateException.class, "acquireAsync on a closed manager", "closed");
        async.toCompletableFuture().handle((h, e) -> h).get(PATIENCE.toMillis(), MILLISECONDS);
        held.release();
        assertThat(third.tryAcquire(name, AT_ONCE)).as("%s after the closed manager's waiter ended and its holder released", quoted(name))
                .hasValueSatisfying(LockHandle::release);
    }

    @Test
    void aShorteningExtendWhoseReplyIsLostShortensTheLeaseOnThisJvm() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean loseReplies = new java.util.concurrent.atomic.AtomicBoolean();
        LockManager holder = buildManager(new ForwardingProvider(newProvider()) {
            @Override
            public void renew(Grant grant, Duration lease) {
                delegate.renew(grant, lease);
                if (loseReplies.get()) {
                    throw new LockBackendException("the kit lost the reply of a renewal the backend applied", null);
                }
            }
        });
        managers.add(holder);
        LockManager other = manager();
        String name = name("shortening-extend");
        // a hard lease, so that extend renews in the backend also where a grant lives with its session (ZooKeeper)
        LockHandle held = holder.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE).withLease(PATIENCE).withAutoRenew(false));
        CountDownLatch lost = new CountDownLatch(1);
        held.onLost(lost::countDown);
        Duration shorter = Duration.ofMillis(300);
        loseReplies.set(true);
        assertThatThrownBy(() -> held.extend(shorter)).as("an extend whose reply was lost").isInstanceOf(LockBackendException.class);
        long shortEnd = System.nanoTime() + shorter.toNanos();
        loseReplies.set(false);
        held.extend(PATIENCE); // confirmed, but the lost one may still reach the backend after it and cut the lease
        assertThat(held.expiresAt()).as("the lease after a longer extend that followed a lost shortening one")
                .isBefore(Instant.now().plus(shorter).plusMillis(100));
        while (System.nanoTime() - shortEnd < 0) {
            Thread.sleep(5);
        }
        assertThat(held.isValid()).as("the handle once the shorter lease it may have got ran out").isFalse();
        assertThat(lost.await(PATIENCE.toMillis(), MILLISECONDS)).as("onLost of a lock whose shortened lease ran out").isTrue();
        assertThat(other.tryAcquire(name, PATIENCE)).as("%s after its holder's shortened lease ran out", quoted(name))
                .hasValueSatisfying(LockHandle::release);
    }

    @Test
    void renewalsConfirmedOnlyAfterTheLeaseRanOutNeverReviveTheLock() throws Exception {
        Duration lease = Duration.ofMillis(600);
        java.util.concurrent.atomic.AtomicBoolean slowReplies = new java.util.concurrent.atomic.AtomicBoolean();
        LockManager holder = buildManager(new ForwardingProvider(newProvider()) {
            @Override
            public void renew(Grant grant, Duration asked) {
                delegate.renew(grant, asked);
                if (slowReplies.get()) {
                    try {
                        Thread.sleep(lease.plusMillis(200).toMillis()); // the reply comes after the lease it renewed
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        });
        managers.add(holder);
        LockManager other = manager();
        for (int round = 0; round < 2; round++) {
            String name = name("late-renewal-" + round);
            LockHandle held = holder.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE).withLease(lease));
            if (held.expiresAt() == null) {
                held.release(); // a grant that lives with its session (ZooKeeper) is never renewed: no renewal to come late
                return;
            }
            CountDownLatch lost = new CountDownLatch(1);
            held.onLost(lost::countDown);
            slowReplies.set(true);
            assertThat(lost.await(PATIENCE.toMillis(), MILLISECONDS)).as("round %d: onLost of a lock whose renewals answer after"
                    + " its lease", round).isTrue();
            assertThat(held.isValid()).as("round %d: the handle once its lease ran out unconfirmed", round).isFalse();
            Thread.sleep(lease.multipliedBy(2).toMillis()); // the late confirmations have all come in by now
            assertThat(held.isValid()).as("round %d: the handle after late confirmations came in", round).isFalse();
            assertThatThrownBy(held::release).as("round %d: release of a lock lost to late renewals", round)
                    .isInstanceOf(LockNotHeldException.class);
            slowReplies.set(false);
            assertThat(other.tryAcquire(name, PATIENCE)).as("round %d: %s after its holder lost it", round, quoted(name))
                    .hasValueSatisfying(LockHandle::release);
        }
    }

    /** A grant that fails when the core starts holding it: a failure after the backend granted, before the handle. */
    private record FailingGrant(Grant grant) implements Grant {
        static final String FAILURE = "the kit's failure after the backend granted";

        static Grant real(Grant g) {
            return g instanceof FailingGrant f ? f.grant : g;
        }

        @Override
        public String name() {
            return grant.name();
        }

        @Override
        public long fencingToken() {
            return grant.fencingToken();
        }

        @Override
        public boolean leased() {
            throw new IllegalStateException(FAILURE);
        }

        @Override
        public boolean endsWithTransaction() {
            return grant.endsWithTransaction();
        }
    }

    // ---------------------------------------------------------------- helpers

    /** Asserts that {@code info} shows {@code name} held, with {@code token} where the backend can tell. */
    private void assertShowsHeld(Optional<LockInfo> info, String name, long token, String when) {
        assertThat(info).as("inspect of %s %s", quoted(name), when).isPresent();
        assertThat(info.get().name()).as("name inspect shows of %s %s", quoted(name), when).isEqualTo(name);
        if (inspectShowsTheHolder()) {
            assertThat(info.get().fencingToken()).as("token inspect shows of %s %s", quoted(name), when).isEqualTo(token);
        }
    }
}
