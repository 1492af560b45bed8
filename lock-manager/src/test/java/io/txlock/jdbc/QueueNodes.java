package io.txlock.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.txlock.LockAdmin;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockMetrics;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;

/**
 * Lock managers over providers and pools of their own, on one test database: the nodes of the fair queue's tests
 * ({@link FairQueueTest}, {@link QueuePassTest}). Their statements are recorded and their renewals counted.
 */
final class QueueNodes implements AutoCloseable {

    static final LockOptions WAIT = LockOptions.defaults().withScope(LockScope.LEASE).withWait(Duration.ofSeconds(60));

    private final List<HikariDataSource> pools = new ArrayList<>();
    private final List<RecordingDataSource> recorded = new ArrayList<>();
    private final List<JdbcLockProvider> providers = new ArrayList<>();
    private final List<LockManager> managers = new ArrayList<>();
    private final List<AtomicInteger> renewed = new ArrayList<>();
    private final List<AtomicInteger> notRenewed = new ArrayList<>();

    /**
     * @param count the nodes
     * @param poolSize the connections of each node's pool
     */
    QueueNodes(JdbcSetup setup, TestDatabase db, Strategy strategy, int count, int poolSize) {
        String url = setup.mysqlDriver ? db.url().replace("jdbc:mariadb:", "jdbc:mysql:") : db.url();
        for (int i = 0; i < count; i++) {
            HikariDataSource pool = TestDatabase.pool(url, db.user(), poolSize);
            RecordingDataSource counted = new RecordingDataSource(pool);
            pools.add(pool);
            recorded.add(counted);
            AtomicInteger renewals = new AtomicInteger();
            AtomicInteger failures = new AtomicInteger();
            renewed.add(renewals);
            notRenewed.add(failures);
            JdbcLockProvider provider = JdbcLockProvider.builder(counted).strategy(strategy).dialect(setup.dialect)
                    .reaperPeriod(Duration.ZERO).build();
            providers.add(provider);
            managers.add(LockManager.builder(provider).metrics(new LockMetrics() {
                @Override
                public void renewal(Renewal outcome) {
                    (outcome == Renewal.OK ? renewals : failures).incrementAndGet();
                }
            }).build());
        }
    }

    /** Waits, polling every 20 ms, at most 30 s, until {@code condition} holds; fails if it never does. */
    static void awaitTrue(BooleanSupplier condition) {
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(condition::getAsBoolean);
    }

    /**
     * Node 0 takes the name free, node 1 heads the queue and wins the name through it when node 0 releases, then node 2
     * blocks in the queue behind node 1, which keeps its queue lock while it holds. Node 1 is taken to head the queue
     * once it sent its queue statement.
     *
     * @return node 1's grant; node 2's comes to {@code granted}
     */
    LockHandle wonThroughTheQueueWithNode2Waiting(TestDatabase db, String name, BlockingQueue<LockHandle> granted,
            ExecutorService threads) throws InterruptedException {
        return wonThroughTheQueueWithNode2Waiting(db, name, granted, threads,
                () -> sent(1, "pg_advisory_lock(") || sent(1, "GET_LOCK("));
    }

    /**
     * As {@link #wonThroughTheQueueWithNode2Waiting(TestDatabase, String, BlockingQueue, ExecutorService)}, with the
     * test's own proof that node 1 heads the queue.
     */
    LockHandle wonThroughTheQueueWithNode2Waiting(TestDatabase db, String name, BlockingQueue<LockHandle> granted,
            ExecutorService threads, BooleanSupplier node1HeadsTheQueue) throws InterruptedException {
        LockHandle queued = wonThroughTheQueue(name, WAIT, granted, threads, node1HeadsTheQueue);
        threads.submit(() -> acquireInto(granted, manager(2), name, WAIT));
        awaitTrue(() -> db.lockWaiters() >= 1);
        return queued;
    }

    /**
     * Node 0 takes the name free, node 1 heads the queue (once {@code node1HeadsTheQueue} holds) and wins the name
     * through it when node 0 releases; both ask with {@code options}.
     *
     * @return node 1's grant, taken from {@code granted}
     */
    LockHandle wonThroughTheQueue(String name, LockOptions options, BlockingQueue<LockHandle> granted, ExecutorService threads,
            BooleanSupplier node1HeadsTheQueue) throws InterruptedException {
        LockHandle outside = manager(0).acquire(name, options);
        threads.submit(() -> acquireInto(granted, manager(1), name, options));
        awaitTrue(node1HeadsTheQueue);
        outside.release();
        return granted.take();
    }

    /** Acquires into {@code granted}; a failure is printed, as no one reads the future. */
    static void acquireInto(BlockingQueue<LockHandle> granted, LockManager manager, String name, LockOptions options) {
        try {
            granted.add(manager.acquire(name, options));
        } catch (RuntimeException | Error e) {
            e.printStackTrace();
            throw e;
        }
    }

    LockManager manager(int node) {
        return managers.get(node);
    }

    LockAdmin admin(int node) {
        return LockAdmin.over(providers.get(node));
    }

    /** @return the renewals of the node's leases that its backend confirmed */
    int renewals(int node) {
        return renewed.get(node).get();
    }

    /** @return the renewals of the node's leases that failed or that its backend refused */
    int renewalsFailed(int node) {
        return notRenewed.get(node).get();
    }

    /** @return a connection of node 0's pool, through the setup's driver, outside its provider */
    Connection connection() throws SQLException {
        return pools.get(0).getConnection();
    }

    int statements(int node) {
        return recorded.get(node).statements();
    }

    /** Opens two connections of the node's pool (an attempt's and a queue's) and gives them back. */
    void warm(int node) throws SQLException {
        try (Connection attempt = pools.get(node).getConnection(); Connection queue = pools.get(node).getConnection()) {
            attempt.isValid(5);
            queue.isValid(5);
        }
    }

    boolean sent(int node, String text) {
        return recorded.get(node).databaseCalls().stream().anyMatch(sql -> sql.contains(text));
    }

    int results(int node) {
        return recorded.get(node).results();
    }

    int calls(int node) {
        return recorded.get(node).databaseCalls().size();
    }

    List<String> callsOf(int node) {
        return recorded.get(node).databaseCalls();
    }

    int active(int node) {
        return pools.get(node).getHikariPoolMXBean().getActiveConnections();
    }

    @Override
    public void close() {
        managers.forEach(LockManager::close);
        pools.forEach(HikariDataSource::close);
    }
}
