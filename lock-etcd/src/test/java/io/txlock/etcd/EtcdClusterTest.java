package io.txlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.LockBackendException;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.LockTimeoutException;
import io.txlock.servers.ServerProcess;
import io.txlock.spi.TransactionSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A 3-member etcd cluster whose leader is killed (kill -9) and started again while three nodes contend for one lock:
 * no two valid holders at once, tokens increase with every grant, and the lock keeps being granted after both.
 */
@Timeout(180)
class EtcdClusterTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final int NODES = 3;
    private static final int THREADS_PER_NODE = 2;
    private static final int SECTIONS_PER_PHASE = 20;
    private static final long PHASE_TIMEOUT_SECONDS = 60;

    private EtcdCluster etcd;
    private final List<LockManager> nodes = new ArrayList<>();

    @BeforeEach
    void start() {
        etcd = EtcdCluster.start(3, 100);
    }

    @AfterEach
    void stop() {
        nodes.forEach(LockManager::close);
        etcd.close();
    }

    /** One critical section: when it ran (System.nanoTime), its token, and whether its handle was still valid at its end. */
    record Section(long start, long end, long token, boolean validAtEnd) {
    }

    @Test
    void leaderKilledAndRestartedMidRunNeverGrantsTwiceAndTokensIncrease() throws Exception {
        String config = EtcdProviderFactory.config(etcd.endpoints(), "/cluster-" + UUID.randomUUID().toString().substring(0, 8) + "/");
        for (int i = 0; i < NODES; i++) {
            nodes.add(LockManager.builder(new EtcdProviderFactory().create(config)).transactions(TransactionSupport.none()).build());
        }
        ConcurrentLinkedQueue<Section> sections = new ConcurrentLinkedQueue<>();
        AtomicInteger backendFailures = new AtomicInteger();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong completed = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (LockManager node : nodes) {
            for (int t = 0; t < THREADS_PER_NODE; t++) {
                Thread thread = new Thread(() -> contend(node, sections, backendFailures, running, completed), "contender-" + threads.size());
                threads.add(thread);
                thread.start();
            }
        }
        try {
            awaitMoreSections(completed, "before the leader is killed");
            ServerProcess leader = etcd.leader();
            leader.crash();
            awaitMoreSections(completed, "after " + leader + " was killed");
            leader.launch();
            leader.awaitReady();
            awaitMoreSections(completed, "after " + leader + " was started again");
        } finally {
            running.set(false);
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(PHASE_TIMEOUT_SECONDS));
            }
        }

        System.out.printf("%d critical sections, %d of them valid to their end, %d acquires failed or timed out%n",
                sections.size(), sections.stream().filter(Section::validAtEnd).count(), backendFailures.get());
        List<Section> valid = sections.stream().filter(Section::validAtEnd).sorted(Comparator.comparingLong(Section::start)).toList();
        assertThat(valid).as("critical sections whose lock was valid to their end (%d backend failures during the run)",
                backendFailures.get()).hasSizeGreaterThanOrEqualTo(3 * SECTIONS_PER_PHASE);
        for (int i = 1; i < valid.size(); i++) {
            Section before = valid.get(i - 1);
            Section after = valid.get(i);
            assertThat(after.start() - before.end()).as("section %d (token %d) started before section %d (token %d) ended:"
                    + " two valid holders at once", i, after.token(), i - 1, before.token()).isPositive();
            assertThat(after.token()).as("token of section %d after %d", i, before.token()).isGreaterThan(before.token());
        }
    }

    private void awaitMoreSections(AtomicLong completed, String when) throws InterruptedException {
        long target = completed.get() + SECTIONS_PER_PHASE;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PHASE_TIMEOUT_SECONDS);
        while (completed.get() < target) {
            assertThat(System.nanoTime() - deadline).as("%d more critical sections %s within %d s", SECTIONS_PER_PHASE,
                    when, PHASE_TIMEOUT_SECONDS).isNegative();
            Thread.sleep(50);
        }
    }

    private static void contend(LockManager node, ConcurrentLinkedQueue<Section> sections, AtomicInteger backendFailures,
            AtomicBoolean running, AtomicLong completed) {
        LockOptions options = LockOptions.defaults().withScope(LockScope.LEASE).withLease(LEASE).withWait(Duration.ofSeconds(10));
        while (running.get()) {
            try (LockHandle handle = node.acquire("the-one-lock", options)) {
                long start = System.nanoTime();
                Thread.sleep(5);
                long end = System.nanoTime();
                sections.add(new Section(start, end, handle.fencingToken(), handle.isValid()));
                completed.incrementAndGet();
            } catch (LockBackendException | LockTimeoutException | io.txlock.LockNotHeldException e) {
                backendFailures.incrementAndGet();
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
