package io.txlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.txlock.LockHandle;
import io.txlock.LockInterruptedException;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link FairQueue}: waiters of OPTIMISTIC_VERSION and UNIQUE_INSERT on several nodes (managers over providers and
 * pools of their own) queue in the database: every node is granted in turn, a waiting node issues no statement while
 * the holder holds (it would with polling), and a waiter that gives up leaves nothing behind.
 */
@Timeout(120)
class FairQueueTest {

    private static final int NODES = 6;
    private static final LockOptions WAIT = QueueNodes.WAIT;
    /** A hold in which a polling waiter (pauses of 1 to 50 ms) would send dozens of statements. */
    private static final long HOLD_MILLIS = 1500;
    /** The statements a node that waits without polling may send in such a hold (looks at the row, LISTEN). */
    private static final int QUIET = 4;

    static Stream<Arguments> databases() {
        return Stream.of(JdbcSetup.POSTGRESQL, JdbcSetup.MARIADB, JdbcSetup.MYSQL_DIALECT_ON_MARIADB)
                .flatMap(setup -> Stream.of(Strategy.OPTIMISTIC_VERSION, Strategy.UNIQUE_INSERT).map(s -> Arguments.of(setup, s)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databases")
    void everyNodeIsGrantedInTurn(JdbcSetup setup, Strategy strategy) throws Exception {
        int rounds = 40;
        try (TestDatabase db = setup.database(); QueueNodes nodes = new QueueNodes(setup, db, strategy, NODES, 4)) {
            int total = NODES * rounds;
            AtomicInteger granted = new AtomicInteger();
            int[] grants = new int[NODES];
            // every node opens its connections before the race, so that no node runs uncontended while the others connect
            for (int i = 0; i < NODES; i++) {
                nodes.warm(i);
            }
            CountDownLatch start = new CountDownLatch(1);
            ExecutorService threads = Executors.newFixedThreadPool(NODES);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int i = 0; i < NODES; i++) {
                    int node = i;
                    done.add(threads.submit(() -> {
                        start.await();
                        while (granted.get() < total) {
                            try (LockHandle held = nodes.manager(node).acquire("fair", WAIT)) {
                                if (granted.incrementAndGet() <= total) {
                                    grants[node]++;
                                }
                            }
                        }
                        return null;
                    }));
                }
                start.countDown();
                for (Future<?> f : done) {
                    f.get(90, TimeUnit.SECONDS);
                }
            } finally {
                threads.shutdownNow();
            }
            int min = Arrays.stream(grants).min().orElseThrow();
            int max = Arrays.stream(grants).max().orElseThrow();
            assertThat(min).as("grants per node %s", Arrays.toString(grants)).isPositive();
            assertThat((double) max / min).as("max/min grants per node %s", Arrays.toString(grants)).isLessThanOrEqualTo(1.5);
        }
    }

    /**
     * First the holder took the lock free, so it holds no queue lock: PostgreSQL's head waits for the release's
     * notification, MariaDB's looks again after pauses. Then the next holder came through the queue and keeps its
     * queue lock: every waiter blocks in the database.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databases")
    void waitingNodesSendNoStatementsWhileTheLockIsHeld(JdbcSetup setup, Strategy strategy) throws Exception {
        try (TestDatabase db = setup.database(); QueueNodes nodes = new QueueNodes(setup, db, strategy, NODES, 4)) {
            LockHandle first = nodes.manager(0).acquire("long", WAIT);
            BlockingQueue<Integer> holders = new LinkedBlockingQueue<>();
            CountDownLatch releaseAll = new CountDownLatch(1);
            ExecutorService threads = Executors.newFixedThreadPool(NODES - 1);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int i = 1; i < NODES; i++) {
                    int node = i;
                    done.add(threads.submit(() -> {
                        try (LockHandle held = nodes.manager(node).acquire("long", WAIT)) {
                            holders.add(node);
                            releaseAll.await();
                        }
                        return null;
                    }));
                }
                // all but the head block on the queue lock
                QueueNodes.awaitTrue(() -> db.lockWaiters() >= NODES - 2);
                int[] busy = statementsDuringHold(nodes, 1, NODES);
                int polling = (int) Arrays.stream(busy).filter(n -> n > QUIET).count();
                assertThat(polling).as("waiting nodes that sent more than %d statements while a holder outside the queue held,"
                        + " per node %s", QUIET, Arrays.toString(busy)).isLessThanOrEqualTo(setup == JdbcSetup.POSTGRESQL ? 0 : 1);

                first.release();
                int second = holders.take();
                QueueNodes.awaitTrue(() -> db.lockWaiters() >= NODES - 2);
                int[] blocked = statementsDuringHold(nodes, 1, NODES);
                blocked[second - 1] = 0;
                assertThat(Arrays.stream(blocked).max().orElseThrow()).as("statements per waiting node while a holder that"
                        + " came through the queue held, per node %s", Arrays.toString(blocked)).isLessThanOrEqualTo(QUIET);
                releaseAll.countDown();
                for (Future<?> f : done) {
                    f.get(60, TimeUnit.SECONDS);
                }
            } finally {
                releaseAll.countDown();
                threads.shutdownNow();
            }
        }
    }

    /**
     * A handoff through the queue: the holder's release frees the row and lets go of the queue lock in one statement,
     * and the next waiter's compare-and-set runs in the statement that was blocked on the queue lock, so it sends no
     * other statement between the release and its grant. MySQL has no compound statements: there the release is two
     * statements and the next waiter runs its attempt once its {@code GET_LOCK} returned ({@link #wokenWaiterStatements}).
     * On MariaDB the waiter's statement answers once, when its compare-and-set has committed.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databases")
    void aHandoffThroughTheQueueIsOneStatementOnEachSide(JdbcSetup setup, Strategy strategy) throws Exception {
        try (TestDatabase db = setup.database(); QueueNodes nodes = new QueueNodes(setup, db, strategy, NODES, 4)) {
            BlockingQueue<LockHandle> granted = new LinkedBlockingQueue<>();
            ExecutorService threads = Executors.newFixedThreadPool(2);
            try {
                LockHandle queued = nodes.wonThroughTheQueueWithNode2Waiting(db, "handoff", granted, threads);
                int released = nodes.calls(1);
                int waited = nodes.calls(2);
                int read = nodes.results(2);
                queued.release();
                LockHandle next = granted.take();
                if (setup.dialect == JdbcDialect.MARIADB) {
                    assertThat(nodes.results(2) - read).as("results of the next waiter's statement, sent once its compare-and-set"
                            + " committed (a result before it would wake the waiter's thread while the statement still runs)").isEqualTo(1);
                }
                assertThat(nodes.calls(1) - released).as("statements of a release through the queue")
                        .isEqualTo(setup.dialect == JdbcDialect.MYSQL ? 2 : 1);
                assertThat(nodes.calls(2) - waited).as("statements of the next waiter from the release to its grant")
                        .isEqualTo(wokenWaiterStatements(setup));
                assertThat(next.fencingToken()).as("the next waiter's token").isGreaterThan(queued.fencingToken());
                next.release();
                assertThat(nodes.manager(3).tryAcquire("handoff")).as("a try once the queue is empty")
                        .hasValueSatisfying(LockHandle::release);
            } finally {
                threads.shutdownNow();
            }
        }
    }

    /**
     * Two nodes hand the lock to each other through the queue, over and over: each node's queue connection (the one
     * connection of its pool, beneath the pool's handle) prepares its statements once, at the first handoffs, and
     * runs them again at the later ones, instead of having the driver parse them anew at every acquire and release.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databases")
    void theQueueConnectionsStatementsArePreparedOnce(JdbcSetup setup, Strategy strategy) throws Exception {
        List<AutoCloseable> closing = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (TestDatabase db = setup.database()) {
            RecordingDataSource[] recorded = new RecordingDataSource[2];
            LockManager[] managers = new LockManager[2];
            for (int i = 0; i < 2; i++) {
                RecordedNode node = RecordedNode.open(setup, db, strategy, closing);
                recorded[i] = node.recorded();
                managers[i] = node.manager();
            }
            BlockingQueue<LockHandle> granted = new LinkedBlockingQueue<>();
            LockHandle held = managers[0].acquire("prepared", WAIT);
            threads.submit(() -> granted.add(managers[1].acquire("prepared", WAIT)));
            QueueNodes.awaitTrue(() -> recorded[1].databaseCalls().stream().anyMatch(sql -> sql.contains("pg_advisory_lock(") || sql.contains("GET_LOCK(")));
            held.release();
            held = granted.take();
            int[] before = new int[2];
            for (int handoff = 1; handoff <= 8; handoff++) {
                if (handoff == 4) { // both queue connections ran every statement of a handoff through the queue
                    before[0] = recorded[0].prepared().size();
                    before[1] = recorded[1].prepared().size();
                }
                LockManager next = managers[(handoff + 1) % 2]; // node 1 holds first
                threads.submit(() -> granted.add(next.acquire("prepared", WAIT)));
                QueueNodes.awaitTrue(() -> db.lockWaiters() >= 1); // the next node blocks in the queue
                LockHandle previous = held;
                held.release();
                held = granted.take();
                assertThat(held.fencingToken()).as("the token of handoff %d", handoff).isGreaterThan(previous.fencingToken());
            }
            held.release();
            for (int i = 0; i < 2; i++) {
                List<String> prepared = recorded[i].prepared();
                assertThat(prepared.subList(before[i], prepared.size())).as("statements node %d prepared at its later handoffs", i).isEmpty();
            }
        } finally {
            threads.shutdownNow();
            closeAll(closing);
        }
    }

    /**
     * A waiter whose wait is shorter than its lease blocks in the queue for what is left of its wait, different at
     * every attempt: the queue's statement binds that wait, so its queue connection prepares one text for all of them,
     * not one per attempt, which would crowd out the connection's other kept statements ({@link ReusedStatements}).
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databases")
    void theQueueStatementIsOneTextForEveryWait(JdbcSetup setup, Strategy strategy) throws Exception {
        List<AutoCloseable> closing = new ArrayList<>();
        try (TestDatabase db = setup.database()) {
            RecordedNode holder = RecordedNode.open(setup, db, strategy, closing);
            RecordedNode waiter = RecordedNode.open(setup, db, strategy, closing);
            LockHandle held = holder.manager().acquire("waits", WAIT);
            for (int attempt = 0; attempt < 3; attempt++) { // whole seconds apart: MySQL's GET_LOCK waits in whole seconds
                assertThat(waiter.manager().tryAcquire("waits", WAIT.withWait(Duration.ofMillis(100 + 1000 * attempt))))
                        .as("attempt %d while the lock is held", attempt).isEmpty();
            }
            held.release();
            List<String> queueTexts = waiter.recorded().prepared().stream()
                    .filter(sql -> sql.contains("pg_advisory_lock(") || sql.contains("GET_LOCK(")).distinct().toList();
            assertThat(queueTexts).as("texts of the queue's statement prepared over 3 attempts with different waits").hasSize(1);
        } finally {
            closeAll(closing);
        }
    }

    /**
     * A node whose pool has one connection, recorded beneath the pool's handles, so that statements kept on that
     * connection ({@link ReusedStatements}) are seen prepared once.
     */
    private record RecordedNode(RecordingDataSource recorded, LockManager manager) {

        /** @param closing what to close after the test, the node's pools and manager added */
        static RecordedNode open(JdbcSetup setup, TestDatabase db, Strategy strategy, List<AutoCloseable> closing) {
            HikariDataSource physical = TestDatabase.pool(setup.mysqlDriver ? db.url().replace("jdbc:mariadb:", "jdbc:mysql:") : db.url(),
                    db.user(), 1);
            closing.add(physical);
            RecordingDataSource recorded = new RecordingDataSource(physical);
            com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
            config.setDataSource(recorded);
            config.setMaximumPoolSize(1);
            HikariDataSource pool = new HikariDataSource(config);
            closing.add(pool);
            LockManager manager = LockManager.builder(JdbcLockProvider.builder(pool).strategy(strategy).dialect(setup.dialect)
                    .reaperPeriod(Duration.ZERO).build()).build();
            closing.add(manager);
            return new RecordedNode(recorded, manager);
        }
    }

    private static void closeAll(List<AutoCloseable> closing) throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    /**
     * A node that let go of a name through its queue goes straight back into the queue when it asks again: an attempt
     * outside the queue cannot win a name whose release just woke a waiter, and its statements would only take CPU
     * from that handoff. So from its acquire to blocking behind the new holder it sends the queue's statement alone.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databases")
    void aNodeThatLetGoThroughTheQueueGoesStraightBackIntoIt(JdbcSetup setup, Strategy strategy) throws Exception {
        try (TestDatabase db = setup.database(); QueueNodes nodes = new QueueNodes(setup, db, strategy, NODES, 4)) {
            BlockingQueue<LockHandle> granted = new LinkedBlockingQueue<>();
            ExecutorService threads = Executors.newFixedThreadPool(2);
            try {
                LockHandle queued = nodes.wonThroughTheQueueWithNode2Waiting(db, "again", granted, threads);
                queued.release();
                LockHandle next = granted.take();
                int before = nodes.calls(1);
                threads.submit(() -> granted.add(nodes.manager(1).acquire("again", WAIT)));
                QueueNodes.awaitTrue(() -> db.lockWaiters() >= 1); // node 1 waits in the queue behind node 2
                assertThat(nodes.calls(1) - before).as("statements of node 1 from its acquire to its wait in the queue, %s",
                        nodes.callsOf(1).subList(before, nodes.calls(1))).isEqualTo(1);
                next.release();
                LockHandle again = granted.take();
                assertThat(again.fencingToken()).as("node 1's token").isGreaterThan(next.fencingToken());
                again.release();
            } finally {
                threads.shutdownNow();
            }
        }
    }

    /** A waiter whose wait runs out, or who is interrupted, leaves the queue and gives back its connection. */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databases")
    void aWaiterThatGivesUpLeavesTheQueue(JdbcSetup setup, Strategy strategy) throws Exception {
        try (TestDatabase db = setup.database(); QueueNodes nodes = new QueueNodes(setup, db, strategy, NODES, 4)) {
            LockHandle held = nodes.manager(0).acquire("given-up", WAIT);
            assertThat(nodes.manager(1).tryAcquire("given-up", WAIT.withWait(Duration.ofMillis(300)))).as("a wait that ran out").isEmpty();
            Thread waiter = new Thread(() -> {
                try {
                    nodes.manager(2).acquire("given-up", WAIT);
                } catch (LockInterruptedException expected) {
                    // its wait ends
                }
            });
            waiter.start();
            QueueNodes.awaitTrue(() -> nodes.active(2) > 0); // its queue connection
            waiter.interrupt();
            waiter.join(10_000);
            assertThat(waiter.isAlive()).as("the interrupted waiter").isFalse();
            QueueNodes.awaitTrue(() -> nodes.active(1) == 0 && nodes.active(2) == 0);
            held.release();
            assertThat(nodes.manager(3).tryAcquire("given-up")).as("a try once released: no queue left behind")
                    .hasValueSatisfying(LockHandle::release);
        }
    }

    /**
     * A waiter blocked in the database on the queue lock, behind a holder that came through the queue (it keeps its
     * queue lock), is interrupted: the core's watchdog cancels the blocked statement, so the waiter gets
     * {@link LockInterruptedException} with its interrupt flag, and it leaves the queue: the waiter queued behind it is
     * granted when the holder releases, and nothing is left locked. The lease and the wait are long, so that a waiter
     * whose statement was not cancelled would stay blocked far past the test's bound.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databases")
    @Timeout(180)
    void anInterruptedWaiterBlockedInTheQueueLeavesIt(JdbcSetup setup, Strategy strategy) throws Exception {
        try (TestDatabase db = setup.database(); QueueNodes nodes = new QueueNodes(setup, db, strategy, NODES, 4)) {
            interruptBlockedInTheQueue(db, nodes);
        }
    }

    /** The same with a pool of one connection per node, which a user may have. */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databases")
    @Timeout(180)
    void anInterruptedWaiterBlockedInTheQueueLeavesItWithPoolsOfOne(JdbcSetup setup, Strategy strategy) throws Exception {
        try (TestDatabase db = setup.database(); QueueNodes nodes = new QueueNodes(setup, db, strategy, NODES, 1)) {
            interruptBlockedInTheQueue(db, nodes);
        }
    }

    /** The same when the waiter's manager closes: its close cancels the blocked statement. */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databases")
    @Timeout(180)
    void aWaiterBlockedInTheQueueWhoseManagerClosesLeavesIt(JdbcSetup setup, Strategy strategy) throws Exception {
        try (TestDatabase db = setup.database(); QueueNodes nodes = new QueueNodes(setup, db, strategy, NODES, 4)) {
            stopBlockedInTheQueue(db, nodes, waiter -> nodes.manager(2).close(), "refused: closed");
        }
    }

    private static void interruptBlockedInTheQueue(TestDatabase db, QueueNodes nodes) throws Exception {
        stopBlockedInTheQueue(db, nodes, Thread::interrupt, "interrupted");
    }

    /**
     * Node 1 holds through the queue, node 2 blocks in the queue's statement behind it and node 3 behind node 2; then
     * {@code stop} ends node 2's wait, whose acquire must end as {@code expected}.
     */
    private static void stopBlockedInTheQueue(TestDatabase db, QueueNodes nodes, java.util.function.Consumer<Thread> stop,
            String expected) throws Exception {
        LockOptions patient = WAIT.withWait(Duration.ofMinutes(2)).withLease(Duration.ofMinutes(2));
        String name = "interrupted-in-queue";
        BlockingQueue<LockHandle> granted = new LinkedBlockingQueue<>();
        ExecutorService threads = Executors.newFixedThreadPool(2);
        Thread waiter = null;
        try {
            LockHandle outside = nodes.manager(0).acquire(name, patient);
            threads.submit(() -> granted.add(nodes.manager(1).acquire(name, patient)));
            QueueNodes.awaitTrue(() -> nodes.sent(1, "pg_advisory_lock(") || nodes.sent(1, "GET_LOCK(")); // heads the queue
            outside.release();
            LockHandle holder = granted.poll(30, TimeUnit.SECONDS);
            assertThat(holder).as("node 1, granted through the queue").isNotNull();
            assertThat(db.lockWaiters()).as("sessions waiting for a lock while node 1 holds").isZero();

            CompletableFuture<String> outcome = new CompletableFuture<>();
            waiter = new Thread(() -> {
                try (LockHandle h = nodes.manager(2).acquire(name, patient)) {
                    outcome.complete("granted");
                } catch (LockInterruptedException e) {
                    outcome.complete(Thread.currentThread().isInterrupted() ? "interrupted" : "interrupted, flag cleared");
                } catch (IllegalStateException e) {
                    outcome.complete(e.getMessage().contains("closed") ? "refused: closed" : "failed: " + e);
                } catch (RuntimeException | Error e) {
                    outcome.complete("failed: " + e);
                }
            }, "queue-waiter-interrupted");
            waiter.start();
            QueueNodes.awaitTrue(() -> db.lockWaiters() >= 1); // node 2 blocks in the database on the queue lock
            assertThat(nodes.sent(2, "pg_advisory_lock(") || nodes.sent(2, "GET_LOCK(")).as("node 2 sent the queue's statement").isTrue();
            threads.submit(() -> granted.add(nodes.manager(3).acquire(name, patient)));
            QueueNodes.awaitTrue(() -> db.lockWaiters() >= 2); // node 3 blocks behind it

            stop.accept(waiter);
            assertThat(outcome).as("node 2's acquire once stopped (bound: a failure guard)")
                    .succeedsWithin(Duration.ofSeconds(30)).isEqualTo(expected);
            QueueNodes.awaitTrue(() -> db.lockWaiters() == 1 && nodes.active(2) == 0); // node 2 left the queue, gave back its connection
            holder.release();
            LockHandle next = granted.poll(30, TimeUnit.SECONDS);
            assertThat(next).as("node 3, granted once node 1 released").isNotNull();
            assertThat(next.fencingToken()).as("node 3's token").isGreaterThan(holder.fencingToken());
            next.release();
            assertThat(db.lockWaiters()).as("sessions waiting for a lock once all released").isZero();
            assertThat(nodes.manager(4).tryAcquire(name)).as("a try once released: no queue left behind")
                    .hasValueSatisfying(LockHandle::release);
        } finally {
            if (waiter != null) {
                waiter.interrupt();
            }
            threads.shutdownNow();
        }
    }

    static Stream<Arguments> databasesAndEveryStrategy() {
        return Stream.of(JdbcSetup.POSTGRESQL, JdbcSetup.MARIADB, JdbcSetup.MYSQL_DIALECT_ON_MARIADB)
                .flatMap(setup -> Stream.of(Strategy.values()).map(s -> Arguments.of(setup, s)));
    }

    /**
     * A node whose pool has one connection holds that connection for the lock: the queue connection of a holder that
     * came through the queue (OPTIMISTIC_VERSION, UNIQUE_INSERT), the session of an ADVISORY lock, the transaction of a
     * SELECT_FOR_UPDATE row lock. Its lease, short here, is renewed by its manager in the background, over several
     * leases, without waiting for a second connection of the pool: the lock stays valid and the node waiting behind it
     * is not granted until it releases.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databasesAndEveryStrategy")
    void aHolderWithAPoolOfOneKeepsItsLeaseRenewed(JdbcSetup setup, Strategy strategy) throws Exception {
        LockOptions shortLease = WAIT.withLease(Duration.ofSeconds(2));
        int renewals = 7; // over two leases: a renewal every third of the lease
        String name = "renewed-with-one-connection";
        try (TestDatabase db = setup.database(); QueueNodes nodes = new QueueNodes(setup, db, strategy, NODES, 1)) {
            BlockingQueue<LockHandle> granted = new LinkedBlockingQueue<>();
            ExecutorService threads = Executors.newFixedThreadPool(2);
            try {
                LockHandle outside = nodes.manager(0).acquire(name, WAIT);
                threads.submit(() -> granted.add(nodes.manager(1).acquire(name, shortLease)));
                QueueNodes.awaitTrue(() -> nodes.sent(1, "pg_advisory_lock(") || nodes.sent(1, "GET_LOCK(") || db.lockWaiters() >= 1);
                outside.release();
                LockHandle holder = granted.poll(30, TimeUnit.SECONDS);
                assertThat(holder).as("node 1, granted once node 0 released").isNotNull();
                assertThat(nodes.active(1)).as("connections of node 1's pool of one held for its lock").isEqualTo(1);
                int renewedBefore = nodes.renewals(1);
                threads.submit(() -> granted.add(nodes.manager(2).acquire(name, shortLease)));
                QueueNodes.awaitTrue(() -> db.lockWaiters() >= 1); // node 2 waits in the database behind node 1

                QueueNodes.awaitTrue(() -> nodes.renewals(1) - renewedBefore >= renewals || nodes.renewalsFailed(1) > 0 || !holder.isValid()
                        || !granted.isEmpty());
                assertThat(holder.isValid()).as("node 1's lock after %d renewals, %d failed", nodes.renewals(1) - renewedBefore,
                        nodes.renewalsFailed(1)).isTrue();
                assertThat(nodes.renewalsFailed(1)).as("node 1's failed or refused renewals").isZero();
                assertThat(granted).as("grants of node 2 while node 1 holds").isEmpty();
                assertThat(nodes.renewals(1) - renewedBefore).as("node 1's renewals").isGreaterThanOrEqualTo(renewals);

                holder.release();
                LockHandle next = granted.poll(30, TimeUnit.SECONDS);
                assertThat(next).as("node 2, granted once node 1 released").isNotNull();
                assertThat(next.fencingToken()).as("node 2's token").isGreaterThan(holder.fencingToken());
                next.release();
            } finally {
                threads.shutdownNow();
            }
        }
    }

    /**
     * The renewals of a holder with a pool of one (the core's in the background, and two threads extending the lock
     * over and over) and its release run at once on the connection it holds for the lock (the queue connection of a
     * holder that came through the queue, the ADVISORY session, the SELECT_FOR_UPDATE transaction), which only one
     * thread may use at a time: every renewal before the release succeeds, the release frees the lock, and the node
     * waiting behind it is granted.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databasesAndEveryStrategy")
    void renewalsAndTheReleaseOfAHolderWithAPoolOfOneRunAtOnce(JdbcSetup setup, Strategy strategy) throws Exception {
        LockOptions shortLease = WAIT.withLease(Duration.ofMillis(600));
        String name = "renewed-and-released";
        try (TestDatabase db = setup.database(); QueueNodes nodes = new QueueNodes(setup, db, strategy, NODES, 1)) {
            BlockingQueue<LockHandle> granted = new LinkedBlockingQueue<>();
            ExecutorService threads = Executors.newFixedThreadPool(4);
            try {
                for (int round = 0; round < 5; round++) {
                    int holding = 1 + round % 2;
                    LockHandle outside = nodes.manager(0).acquire(name, WAIT);
                    int sent = nodes.calls(holding);
                    threads.submit(() -> granted.add(nodes.manager(holding).acquire(name, shortLease)));
                    QueueNodes.awaitTrue(() -> nodes.callsOf(holding).stream().skip(sent)
                            .anyMatch(sql -> sql.contains("pg_advisory_lock(") || sql.contains("GET_LOCK(")) || db.lockWaiters() >= 1);
                    outside.release();
                    LockHandle holder = granted.poll(30, TimeUnit.SECONDS);
                    assertThat(holder).as("node %d, granted once node 0 released", holding).isNotNull();
                    int waiting = 3 - holding;
                    threads.submit(() -> granted.add(nodes.manager(waiting).acquire(name, shortLease)));
                    QueueNodes.awaitTrue(() -> db.lockWaiters() >= 1);

                    int failedBefore = nodes.renewalsFailed(holding); // an extend that raced an earlier release was refused
                    AtomicInteger extended = new AtomicInteger();
                    java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();
                    List<Future<Throwable>> extenders = new ArrayList<>();
                    for (int t = 0; t < 2; t++) {
                        extenders.add(threads.submit(() -> {
                            while (true) {
                                try {
                                    holder.extend(shortLease.lease());
                                    extended.incrementAndGet();
                                } catch (RuntimeException e) {
                                    return released.get() && e instanceof io.txlock.LockNotHeldException ? null : e;
                                }
                            }
                        }));
                    }
                    int renewedBefore = nodes.renewals(holding);
                    QueueNodes.awaitTrue(() -> extended.get() >= 50 && nodes.renewals(holding) - renewedBefore >= 2 || extenders.stream().anyMatch(Future::isDone));
                    int failed = nodes.renewalsFailed(holding) - failedBefore;
                    released.set(true);
                    holder.release();
                    for (Future<Throwable> f : extenders) {
                        assertThat(f.get(30, TimeUnit.SECONDS)).as("what ended an extending thread of node %d", holding).isNull();
                    }
                    assertThat(failed).as("node %d's failed renewals before its release", holding).isZero();
                    LockHandle next = granted.poll(30, TimeUnit.SECONDS);
                    assertThat(next).as("node %d, granted once node %d released", waiting, holding).isNotNull();
                    assertThat(next.fencingToken()).as("its token").isGreaterThan(holder.fencingToken());
                    QueueNodes.awaitTrue(() -> nodes.active(holding) == 0);
                    next.release();
                }
            } finally {
                threads.shutdownNow();
            }
        }
    }

    /**
     * An attempt outside the queue does not take a free row while another session queues for the name: without the
     * gate in the compare-and-set, a node that was not waiting would take the lock past every queued waiter in the gap
     * between a queued holder's release of the row and of its queue lock. Nor does it insert a missing row: without
     * the gate in the insert, a UNIQUE_INSERT holder that took the name free, and deleted its row on release, would
     * take it again at once, past the head.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databases")
    void nobodyTakesTheRowPastTheQueue(JdbcSetup setup, Strategy strategy) throws Exception {
        try (TestDatabase db = setup.database();
                QueueNodes nodes = new QueueNodes(setup, db, strategy, NODES, 4);
                java.sql.Connection queued = nodes.connection()) {
            nodes.manager(0).acquire("gate", WAIT).release();
            Statements st = Statements.of(setup.dialect, "method_lock");
            try (java.sql.PreparedStatement ps = Statements.prepare(queued, st.queueLock(), "gate",
                    st.queueWait(Duration.ofSeconds(5)));
                    java.sql.ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next() && rs.getString(1) != null).as("the queue lock taken").isTrue();
            }
            assertThat(nodes.manager(1).tryAcquire("gate")).as("a try while another session queues for the free row").isEmpty();
            try (java.sql.PreparedStatement ps = Statements.prepare(queued, st.queueUnlock(), "gate")) {
                ps.execute();
            }
            assertThat(nodes.manager(1).tryAcquire("gate")).as("a try once the queue is empty").hasValueSatisfying(LockHandle::release);
        }
    }

    /**
     * MySQL's woken waiter runs the compare-and-set on its queue connection once its {@code GET_LOCK} returned, for
     * either strategy (the holder freed the row): the lock wait read, set and set back (3), the token drawn before
     * the compare-and-set, the compare-and-set, and its retoken (a token and an update).
     */
    private static int wokenWaiterStatements(JdbcSetup setup) {
        return setup.dialect == JdbcDialect.MYSQL ? 3 + 4 : 0;
    }

    private static int[] statementsDuringHold(QueueNodes nodes, int from, int to) throws InterruptedException {
        int[] before = new int[to - from];
        for (int i = from; i < to; i++) {
            before[i - from] = nodes.statements(i);
        }
        Thread.sleep(HOLD_MILLIS); // the span in which a polling waiter would poll: nothing to wait for
        int[] sent = new int[to - from];
        for (int i = from; i < to; i++) {
            sent[i - from] = nodes.statements(i) - before[i - from];
        }
        return sent;
    }
}
