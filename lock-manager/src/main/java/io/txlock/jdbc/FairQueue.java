package io.txlock.jdbc;

import io.txlock.LockNotHeldException;
import io.txlock.spi.Attempt;
import io.txlock.spi.Cancellation;
import io.txlock.spi.LockRequest;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fair waiting, without polling, for {@link io.txlock.Strategy#OPTIMISTIC_VERSION} and
 * {@link io.txlock.Strategy#UNIQUE_INSERT} in LEASE scope, on PostgreSQL, MariaDB and MySQL. A waiter that finds the
 * row held takes, on a connection of its own, the name's queue lock: a session lock of the database (an advisory lock,
 * a user lock), whose waiters the database grants first come first served, so the waiters of every node queue there
 * and only the head is awake. Where the dialect can, the statement that takes the queue lock also tries the row once
 * it holds it ({@link Statements#queueLockAndTakeOver}); MySQL's runs it in statements of its own right after. The head
 * keeps the queue lock while it waits for the row and, once it won the row, while it holds it: the next waiter stays
 * blocked in the database until this holder's release, which frees the row and then the queue lock (one statement
 * where the dialect can, {@link Statements#freeLeavingQueue}; on MariaDB it passes the row to that waiter instead of
 * freeing it, so the waiter takes it without writing), and wakes exactly that waiter. A holder that did not
 * come through the queue (it found the lock free) holds no queue lock: on PostgreSQL its release notifies the name's
 * channel, on which only the head listens ({@link Statements#releaseWaking}); on MariaDB and MySQL, which have no
 * notifications, the head looks again after a pause that doubles up to {@link #RECHECK_MAX}, never later than the
 * holder's lease end.
 *
 * <p>No one takes the row past the queue: while anyone holds the queue lock, an attempt outside it reads the row as
 * held ({@link Statements#selectStateUnqueued()}). A waiter blocked on the queue looks at the row, ignoring the
 * queue, once per lease, so a queue whose holder hangs with its connection open does not outlive the leases.
 *
 * <p>The head's connection is the grant's while it holds the lock: its renewals run on it, so that they need no
 * second connection of the pool (with a pool of one they would wait for it while the lease ran out), and the release
 * frees the row and the queue lock on it, then returns it to the pool. The connection's session is locked around each
 * of them, so a renewal and a release that run at once (the core does not order them) never share it. An attempt that ends without the lock (its wait is over, it was cancelled, it
 * failed) lets go of the queue lock at once, with statements that run even after a cancel; if even that fails, the
 * connection is aborted, so that the database ends its session and its locks.
 */
final class FairQueue {

    /**
     * How long after this node let go of a name through its queue its next attempt on the name goes straight into the
     * queue ({@link #leftLately}).
     */
    static final Duration LATELY = Duration.ofSeconds(1);
    /** The most names remembered as {@link #leftLately}; past that the memory starts over. */
    private static final int LATELY_NAMES = 4096;
    /** The longest pause of a head that cannot be notified, between two looks at the row. */
    static final Duration RECHECK_MAX = Duration.ofMillis(50);
    /** How long a head waits for a notification between two looks whether it was cancelled. */
    private static final long LISTEN_SLICE_MILLIS = 50;
    private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final Logger log = LoggerFactory.getLogger(FairQueue.class);

    private final JdbcAccess db;
    private final RowLease lease;
    private final RowLease.Grants grants;
    /** The grants won through the queue, with the connection that holds its queue lock. */
    private final Map<JdbcGrant, Session> batons = new ConcurrentHashMap<>();
    /** When this node last let go of a name through its queue, in {@link System#nanoTime()}. */
    private final Map<String, Long> left = new ConcurrentHashMap<>();
    private volatile LockTableSql ignoringQueue;
    private volatile String freeUnlistening;

    FairQueue(JdbcAccess db, RowLease lease, RowLease.Grants grants) {
        this.db = db;
        this.lease = lease;
        this.grants = grants;
    }

    /** @return whether an attempt that found the row held waits in the queue: LEASE scope, a wait, a database that queues */
    boolean queues(LockRequest r) {
        return !r.transactional() && !r.maxBlock().isZero() && db.statements().queues();
    }

    /**
     * A name this node won through its queue, and let go of less than {@link #LATELY} ago, is contended: its next
     * attempt outside the queue would find it held by the waiter that release woke (or gated by the queue), so it
     * goes straight into the queue, in one round trip where the dialect has {@link Statements#queueLockAndTakeOver},
     * instead of two or three. That spares the handoff under way the CPU of the attempts that cannot win. If the name
     * is free after all, the queue grants it at once, and the grant keeps its queue connection until its release,
     * as every grant won through the queue does.
     *
     * @return whether this node let go of the name through its queue lately
     */
    boolean leftLately(String name) {
        Long at = left.get(name);
        return at != null && System.nanoTime() - at < LATELY.toNanos();
    }

    /** @return whether releases of grants won outside the queue wake its head ({@link Statements#releaseWaking}) */
    boolean releasesWake() {
        Statements st = db.statements();
        return st.queues() && st.releaseWaking(st.free()) != null;
    }

    /**
     * Waits in the queue, then for the row, for at most the request's wait.
     *
     * @param first the attempt outside the queue that found the row held
     * @return granted, or held when the wait is over or the attempt was cancelled
     */
    Attempt await(LockRequest r, Attempt first) {
        long deadline = System.nanoTime() + Math.min(r.maxBlock().toNanos(), Long.MAX_VALUE / 4);
        Session session = open(r.name());
        Wake wake = new Wake();
        Cancellation.Registration cancel = r.cancellation().onCancel(wake::cancel);
        boolean kept = false;
        try {
            Attempt a = queue(session, r, first, deadline, wake);
            if (a == null) {
                a = head(session, r, deadline, wake);
            }
            if (a.isGranted() && session.queued) {
                session.lease = r.lease();
                batons.put((JdbcGrant) a.grant(), session);
                kept = true;
            }
            return a;
        } catch (SQLException e) {
            throw db.failure("wait in the queue of '" + r.name() + "'", e, false);
        } finally {
            cancel.close();
            if (!kept) {
                session.end();
            }
        }
    }

    /**
     * Blocks in the name's queue until this session heads it; where the dialect can, the statement that takes the
     * queue lock also tries the row ({@link Statements#queueLockAndTakeOver}).
     *
     * @return null once it heads the queue without the row; else the outcome (granted with the queue lock, or on a
     *     row whose lease ran out while the queue stayed blocked; held when the wait is over)
     */
    private Attempt queue(Session session, LockRequest r, Attempt last, long deadline, Wake wake) throws SQLException {
        Statements st = db.statements();
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || wake.over(r)) {
                return Attempt.held();
            }
            long slice = Math.max(r.lease().toNanos(), last.retryAfter() == null ? 0 : last.retryAfter().toNanos());
            Statements.QueueTurn turn;
            try {
                turn = st.takeQueue(session.sql, r, Duration.ofNanos(Math.min(left, slice)));
            } catch (SQLException e) {
                session.leaveQueue(e);
                if (!st.lockUnavailable(e)) {
                    throw e;
                }
                turn = null;
            }
            if (turn != null) {
                session.queued(turn.channel(), turn.token() != null);
                if (turn.passedOwner() != null) {
                    return Attempt.granted(passed(session, r, turn));
                }
                return turn.token() != null && turn.token().isPresent()
                        ? Attempt.granted(grants.grant(r, turn.token().getAsLong())) : null;
            }
            last = lease.attempt(session.sql, ignoringQueue(), r, grants);
            if (last.isGranted()) {
                return last;
            }
        }
    }

    /**
     * The grant of a row that the release passed to this session with the queue lock, as the row holds it: its token,
     * and the owner the release wrote, which its renewals and its release then check. A passed lease shorter than the
     * request's, counted from before the session asked for the queue lock, is renewed for the request's at once.
     */
    private JdbcGrant passed(Session session, LockRequest r, Statements.QueueTurn turn) throws SQLException {
        JdbcGrant g = new JdbcGrant(r.name(), turn.token().getAsLong(), turn.passedOwner(), true, false, null);
        if (turn.passedLeaseMillis() < r.lease().toMillis()) {
            lease.renew(session.sql, db.sql(), g, g.ownerId(), r.lease());
        }
        return g;
    }

    /** Heads the queue: looks at the row, and waits to be woken (or for a pause) until it wins it or the wait is over. */
    private Attempt head(Session session, LockRequest r, long deadline, Wake wake) throws SQLException {
        long pause = FIRST_PAUSE_NANOS;
        boolean looked = session.lookedAtRow;
        while (true) {
            Attempt a = looked ? Attempt.held() : lease.attempt(session.sql, db.sql(), r, grants);
            looked = false;
            if (a.isGranted()) {
                return a;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || wake.over(r)) {
                return Attempt.held();
            }
            if (session.mayListen() && !session.listening) {
                session.listen();
                continue; // a release before LISTEN notified no one: look once more
            }
            long until = a.retryAfter() == null ? left : Math.max(a.retryAfter().toNanos(), FIRST_PAUSE_NANOS);
            if (session.listening) {
                session.awaitNotification(Math.min(left, until), wake, r);
            } else {
                wake.await(Math.min(Math.min(left, until), pause));
                pause = Math.min(pause * 2, RECHECK_MAX.toNanos());
            }
        }
    }

    /**
     * Renews a grant won through the queue on the connection that holds its queue lock.
     *
     * @return false if it holds none (it was not won through the queue, or was released), or if the renewal failed on
     *     it: nothing was renewed
     * @throws LockNotHeldException if the row was no longer the grant's
     */
    boolean renewOnBaton(JdbcGrant g, Duration duration) {
        Session session = batons.get(g);
        if (session == null) {
            return false;
        }
        synchronized (session) {
            if (session.ended) {
                return false;
            }
            try {
                lease.renew(session.sql, db.sql(), g, g.ownerId(), duration);
                return true;
            } catch (SQLException e) {
                log.debug("could not renew '{}' on its queue connection, renewing it on another: {}", g.name(), e.getMessage());
                return false;
            }
        }
    }

    /**
     * Releases a grant won through the queue: frees its row and then its queue lock, in one statement
     * ({@link Statements#freeLeavingQueue}), on the connection that holds the queue lock, which wakes the next waiter.
     *
     * @return false if the grant was not won through the queue: nothing was done
     * @throws LockNotHeldException if the row was no longer the grant's (the queue lock is freed all the same)
     */
    boolean releaseBaton(JdbcGrant g) {
        Session session = batons.remove(g);
        if (session == null) {
            return false;
        }
        Statements st = db.statements();
        int freed;
        synchronized (session) {
            try {
                if (st.freeLeavingQueue() != null) {
                    String sql = session.listening ? freeUnlisteningLeavingQueue(st) : st.freeLeavingQueue();
                    freed = (int) session.sql.queryLongOfLast(sql, st.freeLeavingQueueParameters(g, session.lease)).orElse(0);
                    session.left();
                } else {
                    freed = session.sql.update(st.free(), g.name(), g.fencingToken(), g.ownerId());
                }
            } catch (SQLException e) {
                log.debug("could not free '{}' on its queue connection, freeing it on another: {}", g.name(), e.getMessage());
                session.end();
                return false;
            }
            session.end();
        }
        if (freed == 0) {
            throw RowLease.notHeld(g, g.ownerId());
        }
        if (left.size() >= LATELY_NAMES) {
            left.clear();
        }
        left.put(g.name(), System.nanoTime());
        return true;
    }

    /** Releases a grant won outside the queue where releases wake the head: one statement. */
    void releaseWaking(JdbcGrant g) {
        Statements st = db.statements();
        long freed = db.autoCommitted(c -> JdbcSession.autoCommitting(c).queryLong(st.releaseWaking(lease.releaseRow(st)), g.name(),
                g.fencingToken(), g.ownerId()).orElse(0), "release '" + g.name() + "'");
        if (freed == 0) {
            throw RowLease.notHeld(g, g.ownerId());
        }
    }

    /** Ends the queue connections of grants still held: their queue locks end with them. */
    void close() {
        batons.values().forEach(Session::end);
        batons.clear();
    }

    /** @return {@link Statements#freeLeavingQueue} after {@code UNLISTEN *}, for a head that listened (PostgreSQL) */
    private String freeUnlisteningLeavingQueue(Statements st) {
        String sql = freeUnlistening;
        if (sql == null) {
            sql = "UNLISTEN *;\n" + st.freeLeavingQueue();
            freeUnlistening = sql;
        }
        return sql;
    }

    private LockTableSql ignoringQueue() {
        LockTableSql sql = ignoringQueue;
        if (sql == null) {
            JdbcDialect d = db.dialect();
            sql = new LockTableSql(d, db.statements().ignoringQueue(d));
            ignoringQueue = sql;
        }
        return sql;
    }

    private Session open(String name) {
        try {
            JdbcAccess.OwnTransaction own = db.openSession(() -> "wait in the queue of '" + name + "'");
            Connection c = own.connection();
            boolean manual = false;
            try {
                if (!c.getAutoCommit()) {
                    c.setAutoCommit(true);
                    manual = true;
                }
            } catch (SQLException | RuntimeException e) {
                JdbcAccess.closeQuietly(c);
                throw e;
            }
            return new Session(c, name, manual);
        } catch (SQLException e) {
            throw db.failure("open a connection to wait in the queue of '" + name + "'", e, false);
        }
    }

    /**
     * A connection of the queue's: auto-commit on while it is ours, its queue lock and channel. Its statements are kept
     * on the pooled connection ({@link JdbcSession#reusing}): in auto-commit mode each commits itself.
     */
    private final class Session {
        private final Connection connection;
        private final JdbcSession sql;
        private final String name;
        private final boolean wasManualCommit;
        private boolean queued;
        private boolean lookedAtRow;
        private String channel;
        private boolean listening;
        private boolean ended;
        /** The lease of the grant that holds this session's queue lock. */
        private Duration lease;

        Session(Connection connection, String name, boolean wasManualCommit) {
            this.connection = connection;
            this.sql = JdbcSession.reusing(connection);
            this.name = name;
            this.wasManualCommit = wasManualCommit;
        }

        void queued(String channel, boolean lookedAtRow) {
            this.queued = true;
            this.channel = channel;
            this.lookedAtRow = lookedAtRow;
        }

        /** The queue lock, and the channel, were let go of by the release's statements. */
        void left() {
            this.queued = false;
            this.listening = false;
        }

        /**
         * Lets go of a queue lock that a failed statement may have taken, with a statement that runs even after a
         * cancel.
         *
         * @param failure what failed: what fails now is added to it, and it is thrown
         */
        void leaveQueue(SQLException failure) throws SQLException {
            try {
                Statements st = db.statements();
                sql.executeEvenIfCancelled(st.leaveQueue(), st.leaveQueueParameters(name));
            } catch (SQLException | RuntimeException e) {
                failure.addSuppressed(e);
                queued = true; // end() tries again, and aborts the connection if that fails too
                throw failure;
            }
        }

        boolean mayListen() {
            return channel != null && !channel.isEmpty() && PgNotifications.available(connection);
        }

        void listen() throws SQLException {
            try (Statement s = connection.createStatement()) {
                s.execute("LISTEN \"" + channel + "\"");
            }
            listening = true;
        }

        /** Waits for a notification on the channel, in slices, so that a cancel ends it within one. */
        void awaitNotification(long nanos, Wake wake, LockRequest r) throws SQLException {
            long deadline = System.nanoTime() + nanos;
            for (long left = nanos; left > 0 && !wake.over(r); left = deadline - System.nanoTime()) {
                int millis = (int) Math.max(1, Math.min(LISTEN_SLICE_MILLIS, TimeUnit.NANOSECONDS.toMillis(left)));
                if (PgNotifications.await(connection, millis)) {
                    return;
                }
            }
        }

        /**
         * Lets go of the queue lock and the channel, with statements that run even after a cancel, and returns the
         * connection to the pool; aborts it if that fails, so that the database ends its session and its locks.
         */
        synchronized void end() {
            if (ended) {
                return;
            }
            ended = true;
            CancellableStatements.settle();
            try {
                if (queued) {
                    sql.executeEvenIfCancelled(db.statements().queueUnlock(), name);
                }
                if (listening) {
                    try (Statement s = connection.createStatement()) {
                        s.execute("UNLISTEN *");
                    }
                }
                if (wasManualCommit) {
                    connection.setAutoCommit(false);
                }
                connection.close();
            } catch (SQLException | RuntimeException e) {
                log.debug("could not leave the queue of '{}' on its connection: aborting the connection: {}", name, e.getMessage());
                try {
                    connection.abort(Runnable::run);
                } catch (SQLException | RuntimeException abortFailed) {
                    e.addSuppressed(abortFailed);
                }
                JdbcAccess.closeQuietly(connection);
            }
        }
    }

    /** Where a head pauses: a cancel ends the pause at once. */
    private static final class Wake {
        private boolean cancelled;

        synchronized void cancel() {
            cancelled = true;
            notifyAll();
        }

        /** @return whether the attempt was cancelled, or its thread interrupted (it then waits no more) */
        synchronized boolean over(LockRequest r) {
            return cancelled || r.cancellation().isCancelled() || Thread.currentThread().isInterrupted();
        }

        /** An interrupted thread returns at once and keeps its interrupt flag. */
        synchronized void await(long nanos) {
            long deadline = System.nanoTime() + nanos;
            try {
                for (long left = nanos; !cancelled && left > 0; left = deadline - System.nanoTime()) {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
