package io.txlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.spi.LockProvider;
import io.txlock.spi.TransactionSupport;
import io.txlock.testkit.CountingProvider;
import io.txlock.testkit.FileLockProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The core's local waiting, with a provider that answers at once and offers no wake-up hint (the test kit's
 * {@link FileLockProvider}), watched through a {@link CountingProvider}: one contender per name and manager
 * however many local callers wait, grants in the order callers queued, pauses that grow with jitter, and
 * asynchronous waiters that hold no thread while they wait.
 */
@Timeout(120)
class LocalQueueTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private final List<LockManager> managers = new ArrayList<>();

    @AfterEach
    void closeManagers() {
        Collections.reverse(managers);
        managers.forEach(LockManager::close);
    }

    private LockManager manager(LockProvider provider) {
        LockManager manager = LockManager.builder(provider).transactions(TransactionSupport.none()).build();
        managers.add(manager);
        return manager;
    }

    @Test
    void oneManagerSendsOneContenderPerNameHoweverManyLocalCallersWait() throws Exception {
        String name = "contended";
        LockManager holder = manager(new FileLockProvider(dir));
        CountingProvider counting = new CountingProvider(new FileLockProvider(dir));
        LockManager waiters = manager(counting);
        LockHandle held = holder.acquire(name);
        LockOptions options = LockOptions.defaults().withWait(PATIENCE);
        List<Long> tokens = new CopyOnWriteArrayList<>();
        List<CompletableFuture<?>> pending = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            pending.add(inNewThread("sync-waiter-" + i, () -> {
                try (LockHandle h = waiters.acquire(name, options)) {
                    tokens.add(h.fencingToken());
                }
                return null;
            }));
            pending.add(inNewThread("async-waiter-" + i, () -> waiters.acquireAsync(name, options)).get(30, TimeUnit.SECONDS)
                    .toCompletableFuture().thenAccept(h -> {
                        tokens.add(h.fencingToken());
                        h.release();
                    }));
        }
        Awaitility.await("20 attempts of the waiting manager").atMost(PATIENCE)
                .until(() -> counting.attempts(name).size() >= 20);
        List<CountingProvider.Call> whileHeld = counting.attempts(name);
        assertThat(whileHeld.stream().map(CountingProvider.Call::owner).distinct())
                .as("owners that asked the backend for '%s' while 16 local callers waited for it", name).hasSize(1);
        assertThat(whileHeld).as("attempts while another node held it").noneMatch(CountingProvider.Call::granted);

        held.release();
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertThat(tokens).as("tokens of the 16 local callers").hasSize(16).doesNotHaveDuplicates();
        assertThat(counting.mostInFlight(name)).as("attempts of '%s' running at the same time", name).isEqualTo(1);
    }

    @ParameterizedTest(name = "holder in the same manager: {0}")
    @ValueSource(booleans = {false, true})
    void localWaitersAreGrantedInTheOrderTheyQueued(boolean holderInTheSameManager) throws Exception {
        String name = "fifo";
        LockManager waiters = manager(new FileLockProvider(dir));
        LockManager holder = holderInTheSameManager ? waiters : manager(new FileLockProvider(dir));
        LockHandle held = holder.acquire(name);
        LockOptions options = LockOptions.defaults().withWait(PATIENCE);
        List<Integer> grants = new CopyOnWriteArrayList<>();
        List<CompletableFuture<?>> pending = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            int position = i;
            if (i % 2 == 0) {
                // acquireAsync queues its caller before it returns
                pending.add(inNewThread("async-" + i, () -> waiters.acquireAsync(name, options)).get(30, TimeUnit.SECONDS)
                        .toCompletableFuture().thenAccept(h -> {
                            grants.add(position);
                            h.release();
                        }));
            } else {
                Thread[] thread = new Thread[1];
                pending.add(inNewThread("sync-" + i, () -> {
                    try (LockHandle h = waiters.acquire(name, options)) {
                        grants.add(position);
                    }
                    return null;
                }, thread));
                // a waiter that is not first in its queue parks, timed by its wait, until its turn
                Awaitility.await("sync waiter " + i + " queued").atMost(PATIENCE).pollInterval(Duration.ofMillis(5))
                        .until(() -> thread[0].getState() == Thread.State.TIMED_WAITING);
            }
        }
        assertThat(grants).as("grants while '%s' is held", name).isEmpty();
        held.release();
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertThat(grants).as("the order in which waiters queued in turn got '%s'", name)
                .containsExactlyElementsOf(IntStream.range(0, 10).boxed().toList());
    }

    /**
     * Without a wake-up hint the head of the queue retries after pauses of 1 ms, doubling up to 50 ms, each drawn
     * between half and all of its bound: a few dozen attempts in a held second and a half, not a busy loop.
     */
    @Test
    void withoutAWakeUpHintTheHeadRetriesAfterGrowingJitteredPauses() {
        String name = "backoff";
        LockManager holder = manager(new FileLockProvider(dir));
        CountingProvider counting = new CountingProvider(new FileLockProvider(dir));
        LockManager waiter = manager(counting);
        Duration wait = Duration.ofMillis(1500);
        try (LockHandle held = holder.acquire(name)) {
            assertThat(waiter.tryAcquire(name, wait)).isEmpty();
            assertThat(held.isValid()).isTrue();
        }
        List<CountingProvider.Call> attempts = counting.attempts(name);
        long cappedFrom = 6; // pauses after the 7th attempt are drawn from [25 ms, 50 ms]
        long mostAttempts = cappedFrom + 1 + wait.toMillis() / (Backoff.MAX_NANOS / 2 / 1_000_000);
        assertThat(attempts).as("attempts in a wait of %s", wait).hasSizeBetween(5, (int) mostAttempts);
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < attempts.size(); i++) {
            gaps.add(attempts.get(i).start() - attempts.get(i - 1).start());
        }
        List<Long> capped = gaps.subList((int) cappedFrom, gaps.size());
        assertThat(capped).as("ns between attempts once the pause is capped").allMatch(gap -> gap >= Backoff.MAX_NANOS / 2);
        assertThat(Collections.max(capped) - Collections.min(capped))
                .as("spread of the capped gaps %s: jitter, not one fixed period", capped)
                .isGreaterThan(TimeUnit.MILLISECONDS.toNanos(2));
    }

    @Test
    void asyncWaitersHoldNoThreadWhileTheyWait() throws Exception {
        LockManager holder = manager(new FileLockProvider(dir));
        CountingProvider counting = new CountingProvider(new FileLockProvider(dir));
        LockManager waiters = manager(counting);
        List<String> names = IntStream.range(0, 20).mapToObj(i -> "parked-" + i).toList();
        List<LockHandle> held = new ArrayList<>();
        for (String name : names) {
            held.add(holder.acquire(name));
        }
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        LockOptions options = LockOptions.defaults().withWait(Duration.ofMinutes(2));
        for (int i = 0; i < 200; i++) {
            pending.add(waiters.acquireAsync(names.get(i % names.size()), options).toCompletableFuture()
                    .thenAccept(LockHandle::release));
        }
        Awaitility.await("every queue head retried 5 times").atMost(PATIENCE)
                .until(() -> names.stream().allMatch(n -> counting.attempts(n).size() >= 5));
        String workers = "txlock-" + waiters.instanceId() + "-worker-";
        long liveWorkers = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith(workers)).count();
        assertThat(liveWorkers).as("worker threads of a manager with 200 async waiters on 20 held names").isLessThan(50);
        assertThat(pending).as("async waiters while their names are held").noneMatch(CompletableFuture::isDone);

        held.forEach(LockHandle::release);
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }

    private static <T> CompletableFuture<T> inNewThread(String name, Callable<T> call) {
        return inNewThread(name, call, new Thread[1]);
    }

    /** Runs {@code call} in a new thread, handed back in {@code started[0]}. */
    private static <T> CompletableFuture<T> inNewThread(String name, Callable<T> call, Thread[] started) {
        CompletableFuture<T> result = new CompletableFuture<>();
        FutureTask<T> task = new FutureTask<>(call) {
            @Override
            protected void done() {
                try {
                    result.complete(get());
                } catch (Exception e) {
                    result.completeExceptionally(e.getCause() != null ? e.getCause() : e);
                }
            }
        };
        started[0] = new Thread(task, "test-" + name);
        started[0].start();
        return result;
    }
}
