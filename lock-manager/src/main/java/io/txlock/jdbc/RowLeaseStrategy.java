package io.txlock.jdbc;

import io.txlock.LockInfo;
import io.txlock.spi.Attempt;
import io.txlock.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;

/**
 * {@link RowLease} on the JDBC provider's connections. In LEASE scope every statement commits at once, so no row
 * lock outlives a statement, the provider's own connections in auto-commit mode keep the statements prepared
 * ({@link JdbcSession#autoCommitting}), and a waiter that found the row held waits in the name's {@link FairQueue}
 * where the database has one (a node that let go of the name through its queue lately goes there at once), and a
 * grant won there is renewed and released on its queue connection; in
 * TRANSACTION scope the statements join the caller's transaction, and waiters block on its row lock (bounded by their
 * wait) until it ends.
 */
final class RowLeaseStrategy implements LockStrategy {

    private final JdbcAccess db;
    private final RowLease lease;
    private final FairQueue queue;

    RowLeaseStrategy(JdbcAccess db, RowLease lease) {
        this.db = db;
        this.lease = lease;
        this.queue = new FairQueue(db, lease, RowLeaseStrategy::grant);
    }

    @Override
    public Attempt tryAcquire(LockRequest r) {
        LockTableSql sql = db.sql();
        if (r.transactional()) {
            return db.onExistingRowInCallerTransaction(r.name(), c -> lease.attempt(SqlSession.of(c), sql, r, RowLeaseStrategy::grant),
                    "acquire '" + r.name() + "' in the caller's transaction");
        }
        boolean queues = queue.queues(r);
        if (queues && queue.leftLately(r.name())) {
            return queue.await(r, Attempt.held());
        }
        Attempt first = db.autoCommitted(c -> lease.attempt(JdbcSession.autoCommitting(c), sql, r, RowLeaseStrategy::grant),
                "acquire '" + r.name() + "'");
        return first.isGranted() || !queues ? first : queue.await(r, first);
    }

    private static JdbcGrant grant(LockRequest r, long token) {
        return new JdbcGrant(r.name(), token, r.owner().id(), !r.transactional(), r.transactional(), null);
    }

    @Override
    public void renew(JdbcGrant g, Duration duration) {
        if (queue.renewOnBaton(g, duration)) {
            return;
        }
        db.autoCommitted(c -> {
            lease.renew(JdbcSession.autoCommitting(c), db.sql(), g, g.ownerId(), duration);
            return null;
        }, "renew '" + g.name() + "'");
    }

    @Override
    public void release(JdbcGrant g) {
        if (queue.releaseBaton(g)) {
            return;
        }
        if (queue.releasesWake()) {
            queue.releaseWaking(g);
            return;
        }
        db.autoCommitted(c -> {
            lease.release(JdbcSession.autoCommitting(c), db.sql(), g, g.ownerId());
            return null;
        }, "release '" + g.name() + "'");
    }

    @Override
    public void beforeCompletion(JdbcGrant g) {
        db.inCallerTransaction(c -> lease.free(SqlSession.of(c), db.sql(), g, g.ownerId()), "free '" + g.name() + "' before commit");
    }

    @Override
    public void close() {
        queue.close();
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return db.autoCommitted(c -> db.statements().readInfo(c, name), "inspect '" + name + "'");
    }
}
