package io.txlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.LockHandle;
import io.txlock.LockInfo;
import io.txlock.LockOptions;
import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * MariaDB's release through the fair queue passes the row to the session that holds the queue lock next
 * ({@link MariaDbStatements#freeLeavingQueue}): one durable write per handoff, the releaser's; the woken waiter's
 * locking read takes the row as it is, and writes nothing: the row keeps the owner the release wrote.
 */
class QueuePassTest {

    private static final LockOptions WAIT = QueueNodes.WAIT;

    static Stream<Arguments> databases() {
        return Stream.of(JdbcSetup.MARIADB, JdbcSetup.MARIADB_THROUGH_MYSQL_DRIVER)
                .flatMap(setup -> Stream.of(Strategy.OPTIMISTIC_VERSION, Strategy.UNIQUE_INSERT).map(s -> Arguments.of(setup, s)));
    }

    /**
     * Node 1 holds through the queue, node 2 waits behind it. Node 1's release is the handoff's one write, which hands
     * the row to node 2's queue connection with a new token; node 2 writes nothing before its grant (before: the
     * release freed the row and node 2's compare-and-set took it, writing node 2's owner: two writes, two commits).
     * The row shows held, and node 2 renews and releases it. (Triggers cannot count the writes: a trigger on the table
     * hides the {@code LAST_INSERT_ID(…)} of MariaDB's answer to the compare-and-set.)
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databases")
    void aHandoffThroughTheQueueIsOneWriteOfTheReleaser(JdbcSetup setup, Strategy strategy) throws Exception {
        try (TestDatabase db = setup.database(); QueueNodes nodes = new QueueNodes(setup, db, strategy, 3, 4)) {
            BlockingQueue<LockHandle> granted = new LinkedBlockingQueue<>();
            ExecutorService threads = Executors.newFixedThreadPool(2);
            try {
                LockHandle queued = nodes.wonThroughTheQueueWithNode2Waiting(db, "pass", granted, threads,
                        headsTheQueue(db, "pass"));
                queued.release();
                LockHandle next = granted.take();
                LockInfo row = nodes.admin(0).list("pass").get(0);
                assertThat(row.ownerId()).as("the row's owner: the release's pass to node 2's queue connection, which node 2's"
                        + " compare-and-set (its one write) would have replaced with its own").matches("queue:[0-9]+");
                assertThat(row.fencingToken()).as("the row's token").isEqualTo(next.fencingToken());
                assertThat(next.fencingToken()).as("node 2's token").isGreaterThan(queued.fencingToken());
                assertThat(next.isValid()).isTrue();
                next.extend(Duration.ofMinutes(1));
                assertThat(nodes.admin(0).list("pass").get(0).until()).as("the lease after node 2's renewal").isAfter(row.until());
                next.release();
                assertThat(nodes.manager(0).tryAcquire("pass")).as("a try once the queue is empty").hasValueSatisfying(h -> {
                    assertThat(h.fencingToken()).isGreaterThan(next.fencingToken());
                    h.release();
                });
            } finally {
                threads.shutdownNow();
            }
        }
    }

    /**
     * Eight nodes, each acquiring and releasing in a loop through the queue, and one trying without waiting (outside
     * the queue, gated): never two holders at once, and every grant's token greater than the one before.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databases")
    void eightNodesExcludeEachOtherWithGrowingTokens(JdbcSetup setup, Strategy strategy) throws Exception {
        int queuing = 8;
        try (TestDatabase db = setup.database(); QueueNodes nodes = new QueueNodes(setup, db, strategy, queuing + 1, 4)) {
            int total = 400;
            AtomicInteger grants = new AtomicInteger();
            AtomicInteger inside = new AtomicInteger();
            AtomicLong last = new AtomicLong();
            AtomicReference<String> broken = new AtomicReference<>();
            CountDownLatch start = new CountDownLatch(1);
            ExecutorService threads = Executors.newFixedThreadPool(queuing + 1);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int i = 0; i <= queuing; i++) {
                    int node = i;
                    done.add(threads.submit(() -> {
                        start.await();
                        while (grants.get() < total && broken.get() == null) {
                            Optional<LockHandle> got = node == queuing
                                    ? nodes.manager(node).tryAcquire("eight")
                                    : Optional.of(nodes.manager(node).acquire("eight", WAIT));
                            if (got.isEmpty()) {
                                continue;
                            }
                            try (LockHandle held = got.get()) {
                                if (inside.incrementAndGet() != 1) {
                                    broken.compareAndSet(null, "two holders at once, one of them node " + node);
                                }
                                long previous = last.getAndSet(held.fencingToken());
                                if (held.fencingToken() <= previous) {
                                    broken.compareAndSet(null, "token " + held.fencingToken() + " after " + previous);
                                }
                                grants.incrementAndGet();
                                inside.decrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
                start.countDown();
                for (Future<?> f : done) {
                    f.get(120, TimeUnit.SECONDS);
                }
            } finally {
                threads.shutdownNow();
            }
            assertThat(broken.get()).as("what broke").isNull();
            assertThat(grants.get()).isGreaterThanOrEqualTo(total);
        }
    }

    /**
     * An attempt outside the queue whose gated compare-and-set waits for the row's lock while the holder passes the row
     * on (it evaluates its condition on the passed row, held) takes nothing, and neither does one that holds the row's
     * lock first (the release waits for it, the queue lock still the releaser's): the waiter the release woke holds,
     * and the attempt, queued behind it, is granted after it with a greater token. A blocker holding the row's lock
     * orders the two. OPTIMISTIC_VERSION: UNIQUE_INSERT's attempt looks at the queue lock before it touches the row.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("setups")
    void anAttemptOutsideTheQueueRacingAPassTakesNothing(JdbcSetup setup) throws Exception {
        for (boolean attemptFirst : new boolean[] {true, false}) {
            try (TestDatabase db = setup.database(); QueueNodes nodes = new QueueNodes(setup, db, Strategy.OPTIMISTIC_VERSION, 4, 4)) {
                BlockingQueue<LockHandle> granted = new LinkedBlockingQueue<>();
                ExecutorService threads = Executors.newFixedThreadPool(3);
                try (Connection blocker = db.dataSource().getConnection()) {
                    LockHandle queued = nodes.wonThroughTheQueueWithNode2Waiting(db, "race", granted, threads,
                            headsTheQueue(db, "race"));
                    blocker.setAutoCommit(false);
                    try (Statement s = blocker.createStatement()) {
                        s.executeQuery("SELECT version FROM method_lock WHERE name = 'race' FOR UPDATE").close();
                    }
                    int waiting = db.lockWaiters();
                    Future<LockHandle> outside;
                    if (attemptFirst) {
                        outside = threads.submit(() -> nodes.manager(3).acquire("race", WAIT));
                        QueueNodes.awaitTrue(() -> db.lockWaiters() >= waiting + 1);
                        threads.submit(() -> {
                            queued.release();
                            return null;
                        });
                    } else {
                        threads.submit(() -> {
                            queued.release();
                            return null;
                        });
                        QueueNodes.awaitTrue(() -> db.lockWaiters() >= waiting + 1);
                        outside = threads.submit(() -> nodes.manager(3).acquire("race", WAIT));
                    }
                    QueueNodes.awaitTrue(() -> db.lockWaiters() >= waiting + 2);
                    blocker.commit();
                    LockHandle next = granted.take();
                    QueueNodes.awaitTrue(() -> db.lockWaiters() >= 1); // the attempt, queued behind node 2
                    assertThat(outside.isDone()).as("the attempt outside the queue, while node 2 holds (attempt first: %s)",
                            attemptFirst).isFalse();
                    assertThat(next.fencingToken()).isGreaterThan(queued.fencingToken());
                    assertThat(next.isValid()).isTrue();
                    next.release();
                    LockHandle after = outside.get(30, TimeUnit.SECONDS);
                    assertThat(after.fencingToken()).isGreaterThan(next.fencingToken());
                    after.release();
                } finally {
                    threads.shutdownNow();
                }
            }
        }
    }

    static Stream<JdbcSetup> setups() {
        return Stream.of(JdbcSetup.MARIADB, JdbcSetup.MARIADB_THROUGH_MYSQL_DRIVER);
    }

    /**
     * The session the row was passed to dies before it read it (or after: nobody can tell): the row stays held until
     * the pass's lease ends, then the next attempt takes it with a greater token. A session that leaves the queue
     * after a failure frees a row passed to it at once ({@link MariaDbStatements#leaveQueue}).
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databases")
    void aRowPassedToASessionThatDiesOrLeavesGoesToTheNextAttemptWithAGreaterToken(JdbcSetup setup, Strategy strategy) throws Exception {
        for (boolean dies : new boolean[] {true, false}) {
            LockOptions lease = WAIT.withLease(Duration.ofSeconds(5));
            try (TestDatabase db = setup.database(); QueueNodes nodes = new QueueNodes(setup, db, strategy, 3, 4)) {
                MariaDbStatements st = new MariaDbStatements("method_lock");
                BlockingQueue<LockHandle> granted = new LinkedBlockingQueue<>();
                ExecutorService threads = Executors.newFixedThreadPool(2);
                try {
                    LockHandle queued = nodes.wonThroughTheQueue("dies", lease, granted, threads, headsTheQueue(db, "dies"));
                    Connection waiter = db.dataSource().getConnection();
                    long id;
                    try (Statement s = waiter.createStatement(); ResultSet rs = s.executeQuery("SELECT CONNECTION_ID()")) {
                        rs.next();
                        id = rs.getLong(1);
                    }
                    // a queue session as the compound statement starts one: its own token, then the queue lock
                    try (Statement s = waiter.createStatement()) {
                        s.execute("SET @txlock_queued = NEXTVAL(method_lock_token_seq)");
                    }
                    Future<?> blocked = threads.submit(() -> {
                        try (PreparedStatement ps = Statements.prepare(waiter, st.queueLock(), "dies", st.queueWait(Duration.ofSeconds(30)))) {
                            ps.executeQuery().close();
                        }
                        return null;
                    });
                    QueueNodes.awaitTrue(() -> db.lockWaiters() >= 1);
                    queued.release();
                    blocked.get(30, TimeUnit.SECONDS);
                    LockInfo row = nodes.admin(0).list("dies").get(0);
                    assertThat(row.ownerId()).as("the row passed to the waiting session").isEqualTo("queue:" + id);
                    assertThat(row.fencingToken()).isGreaterThan(queued.fencingToken());
                    if (dies) {
                        try (Connection killer = db.dataSource().getConnection(); Statement s = killer.createStatement()) {
                            s.execute("KILL " + id);
                        }
                        waiter.close();
                        assertThat(nodes.manager(2).tryAcquire("dies")).as("a try while the pass's lease runs").isEmpty();
                    } else {
                        try (PreparedStatement ps = Statements.prepare(waiter, st.leaveQueue(), st.leaveQueueParameters("dies"))) {
                            ps.execute();
                        }
                        waiter.close();
                        assertThat(nodes.admin(0).list("dies")).as("the row once the session left the queue").isEmpty();
                    }
                    // this acquire waits about the pass's lease in one attempt, so its own lease, counted from the
                    // attempt's start, is nearly or wholly spent when it is granted, and the core renews it at once
                    LockHandle next = nodes.manager(2).acquire("dies", lease);
                    assertThat(next.fencingToken()).as("the next grant's token (the session died: %s)", dies).isGreaterThan(row.fencingToken());
                    next.release();
                } finally {
                    threads.shutdownNow();
                }
            }
        }
    }

    /**
     * A release through the queue when nobody waits behind it frees the row: the next attempt, outside the queue,
     * takes it at once.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databases")
    void aReleaseThroughTheQueueWithNobodyBehindFreesTheRow(JdbcSetup setup, Strategy strategy) throws Exception {
        try (TestDatabase db = setup.database(); QueueNodes nodes = new QueueNodes(setup, db, strategy, 3, 4)) {
            BlockingQueue<LockHandle> granted = new LinkedBlockingQueue<>();
            ExecutorService threads = Executors.newFixedThreadPool(1);
            try {
                LockHandle queued = nodes.wonThroughTheQueue("alone", WAIT, granted, threads, headsTheQueue(db, "alone"));
                queued.release();
                assertThat(nodes.admin(0).list("alone")).as("held rows after the release").isEmpty();
                assertThat(nodes.manager(2).tryAcquire("alone")).hasValueSatisfying(h -> {
                    assertThat(h.fencingToken()).isGreaterThan(queued.fencingToken());
                    h.release();
                });
            } finally {
                threads.shutdownNow();
            }
        }
    }

    /** @return whether node 1 heads the name's queue: it holds the queue lock, and no session waits for a lock */
    private static BooleanSupplier headsTheQueue(TestDatabase db, String name) {
        return () -> db.lockWaiters() == 0 && queueHeld(db, name);
    }

    private static boolean queueHeld(TestDatabase db, String name) {
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps = Statements.prepare(c, "SELECT IS_USED_LOCK(" + InnoDbStatements.queueKey("?").replace("{table}", "method_lock") + ")", name);
                ResultSet rs = ps.executeQuery()) {
            return rs.next() && rs.getObject(1) != null;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

}
