package io.txlock.jdbc;

import io.txlock.LockInfo;
import io.txlock.LockNotHeldException;
import io.txlock.Strategy;
import io.txlock.spi.Attempt;
import io.txlock.spi.LockRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link Strategy#ADVISORY}: the database's advisory lock of the name's key ({@link AdvisoryKeys}), taken by one
 * statement that also draws the fencing token once it holds the lock ({@link Statements#takeAdvisoryLock}); no row is
 * read or written. Waiters block in the database, bounded by their wait.
 *
 * <p>Where an advisory lock can end with a transaction (PostgreSQL's {@code pg_advisory_xact_lock}), a
 * TRANSACTION-scoped lock is taken in the caller's transaction and ends with it. Every other lock is a lock of a
 * session: it is taken on a connection of the provider's own, kept until release, in auto-commit mode as the pool
 * hands it out (or committed after each statement), so the database holds no transaction open for it. A
 * TRANSACTION-scoped MySQL/MariaDB lock is such a session lock, released by the core once the caller's transaction
 * ended: the caller's own pooled connection never carries a user lock past its transaction. A session connection
 * whose statements failed lets go of all its advisory locks before it goes back to the pool, or is aborted.
 */
final class Advisory implements LockStrategy {

    private final JdbcAccess db;
    /** Locks held now, each on a pooled connection of its own. */
    private final AtomicInteger heldConnections = new AtomicInteger();
    /** The key text of every name up to the name ({@link AdvisoryKeys#keyText}), from the table's namespace read once. */
    private volatile String keyPrefix;
    /** Whether the database has advisory locks, checked once it was reached. */
    private volatile boolean checked;

    Advisory(JdbcAccess db) {
        this.db = db;
    }

    /**
     * @param dialect the database
     * @throws IllegalArgumentException if it has no advisory locks (H2)
     */
    static void requireAdvisoryLocks(JdbcDialect dialect) {
        if (!dialect.strategies().contains(Strategy.ADVISORY)) {
            throw new IllegalArgumentException("Strategy.ADVISORY needs the database's advisory locks, and "
                    + dialect.name().toLowerCase(java.util.Locale.ROOT) + " has none: use one of " + dialect.strategies()
                    + " there (SELECT_FOR_UPDATE waits in the database as ADVISORY does)");
        }
    }

    private Statements statements() {
        Statements st = db.statements();
        if (!checked) {
            requireAdvisoryLocks(db.dialect());
            checked = true;
        }
        return st;
    }

    @Override
    public Attempt tryAcquire(LockRequest r) {
        Statements st = statements();
        if (r.transactional() && st.advisoryLocksEndWithTransaction()) {
            OptionalLong token = db.inOpenCallerTransaction(r.name(),
                    c -> st.takeAdvisoryLock(SqlSession.of(c), key(c, r.name()), r.maxBlock(), true),
                    "take the advisory lock of '" + r.name() + "' in the caller's transaction");
            return token.isPresent()
                    ? Attempt.granted(new JdbcGrant(r.name(), token.getAsLong(), null, false, true, null))
                    : Attempt.held();
        }
        JdbcAccess.OwnTransaction session;
        try {
            session = db.openSession(() -> "take the advisory lock of '" + r.name() + "' on a connection of its own");
        } catch (SQLException e) {
            throw db.failure("open a connection to lock '" + r.name() + "' (this provider holds " + heldConnections.get()
                    + " ADVISORY locks, each on a pooled connection of its own until released: a pool must have more"
                    + " connections than the locks held at once)", e, false);
        }
        try {
            Connection c = session.connection();
            Object key = key(c, r.name());
            OptionalLong token = st.takeAdvisoryLock(session.session(), key, r.maxBlock(), false);
            if (!c.getAutoCommit()) {
                if (token.isPresent()) {
                    c.commit();
                } else {
                    c.rollback();
                }
            }
            if (token.isEmpty()) {
                session.close();
                return Attempt.held();
            }
            heldConnections.incrementAndGet();
            session.lockKey(key);
            return Attempt.granted(new JdbcGrant(r.name(), token.getAsLong(), null, true, false, session));
        } catch (SQLException e) {
            discard(session);
            throw db.failure("take the advisory lock of '" + r.name() + "'", e, false);
        } catch (RuntimeException e) {
            discard(session);
            throw e;
        }
    }

    /**
     * Gives up a session connection whose state is unknown (it may hold the lock): lets go of every advisory lock of
     * its session and gives it back; if that fails, aborts it, so that the database ends the session with its locks
     * and the pool drops it rather than hand out a connection that holds a lock.
     */
    private void discard(JdbcAccess.OwnTransaction session) {
        CancellableStatements.settle();
        Connection c = session.connection();
        try {
            db.statements().releaseAdvisoryLocks(c);
            if (!c.getAutoCommit()) {
                c.commit();
            }
        } catch (SQLException | RuntimeException unlockFailed) {
            try {
                c.abort(Runnable::run);
            } catch (SQLException | RuntimeException | AbstractMethodError notAborted) {
                // broken: the database ends the session, and its locks, when it notices
            }
        } finally {
            try {
                c.close();
            } catch (SQLException ignored) {
                // aborted or broken: the pool discards it
            }
        }
    }

    /** @return the name's advisory key ({@link AdvisoryKeys}) */
    private Object key(Connection c, String name) throws SQLException {
        return db.statements().advisoryKey(keyText(c, name));
    }

    private String keyText(Connection c, String name) throws SQLException {
        String prefix = keyPrefix;
        if (prefix == null) {
            try (PreparedStatement ps = Statements.prepare(c, db.statements().advisoryNamespace()); ResultSet rs = ps.executeQuery()) {
                prefix = AdvisoryKeys.keyText(rs.next() ? rs.getString(1) : null, db.table(), "");
            }
            keyPrefix = prefix;
        }
        return prefix.concat(name);
    }

    /** A session lock: checks the connection holding it is alive (the database keeps no lease); else nothing to do. */
    @Override
    public void renew(JdbcGrant g, Duration lease) {
        if (g.transaction() != null && !JdbcAccess.alive(g.transaction().connection(), lease)) {
            throw new LockNotHeldException("lock " + g + " is gone: the connection holding its advisory lock was lost");
        }
    }

    @Override
    public void release(JdbcGrant g) {
        JdbcAccess.OwnTransaction session = g.transaction();
        if (session == null) {
            return;
        }
        heldConnections.decrementAndGet();
        Connection c = session.connection();
        boolean released;
        try {
            Object key = session.lockKey();
            released = db.statements().releaseAdvisoryLock(session.session(), key != null ? key : key(c, g.name()));
            if (!c.getAutoCommit()) {
                c.commit();
            }
        } catch (SQLException e) {
            discard(session);
            throw new LockNotHeldException("lock " + g + " may have been lost before release: the connection holding its"
                    + " advisory lock failed (" + e.getMessage() + ")");
        }
        if (!released) {
            discard(session);
            throw new LockNotHeldException("lock " + g + " was no longer held by the connection that took it");
        }
        try {
            session.close();
        } catch (SQLException e) {
            // released already; the pool discards a broken connection
        }
    }

    @Override
    public void beforeCompletion(JdbcGrant g) {
    }

    /**
     * The database does not say who holds an advisory lock in a way txlock could map to an owner: a held lock is
     * reported as held by an unknown owner, with token 0 (the core fills in the owner where its own manager holds it).
     */
    @Override
    public Optional<LockInfo> inspect(String name) {
        Statements st = statements();
        return db.autoCommitted(c -> st.advisoryLockHeld(SqlSession.of(c), key(c, name))
                ? Optional.of(new LockInfo(name, null, null, 0, null, null, 1))
                : Optional.<LockInfo>empty(), "inspect '" + name + "'");
    }
}
