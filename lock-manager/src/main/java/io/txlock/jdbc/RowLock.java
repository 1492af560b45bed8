package io.txlock.jdbc;

import io.txlock.LockInfo;
import io.txlock.LockNotHeldException;
import io.txlock.spi.Attempt;
import io.txlock.spi.Grant;
import io.txlock.spi.LockRequest;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The algorithm of {@link io.txlock.Strategy#SELECT_FOR_UPDATE}, written once for the JDBC provider and the JPA
 * provider ({@code io.txlock.jpa}) over a {@link SqlSession}: the lock is the row lock of the name's row, taken by
 * one locking read that also draws the fencing token ({@link Statements#lockRow}); nothing is written. Waiters block
 * in the database, bounded by their wait. In LEASE scope ({@link #acquire}) the row lock belongs to a transaction of
 * the provider's own ({@link Holder}), which stays open until {@link #release} or until the database notices that
 * its connection died; a missing row is first created FREE and committed, so that other nodes can see the row is
 * locked. In TRANSACTION scope (the JDBC provider's; the JPA provider takes the row lock through its entity manager)
 * the row lock belongs to the caller's transaction, and a missing row is created in it.
 *
 * <p><b>Internal to txlock.</b> Not an API: it may change in any release.
 *
 * @param <H> the provider's holders
 */
public final class RowLock<H extends RowLock.Holder> {

    /**
     * A transaction of the provider's own, on a connection of its own, that holds a LEASE-scoped row lock until
     * released: a JDBC connection, or an entity manager. Used by one thread at a time, under its own monitor.
     */
    public interface Holder {

        /** @return where the statements run, in the holder's transaction */
        SqlSession session();

        /** @return false once {@link #end()} or {@link #close()} gave the connection back */
        boolean isOpen();

        /**
         * Rolls back the transaction, which frees its row locks, and gives the connection back.
         *
         * @throws SQLException if it failed
         */
        void end() throws SQLException;

        /**
         * Gives back the connection of a transaction that has ended.
         *
         * @throws SQLException if it failed
         */
        void close() throws SQLException;
    }

    /**
     * Opens holders.
     *
     * @param <H> the provider's holders
     */
    @FunctionalInterface
    public interface Holders<H> {
        /**
         * @param r the request to lock for
         * @param held the LEASE locks this algorithm holds now, each on a holder of its own, until released
         * @return a holder in a new transaction
         * @throws RuntimeException the provider's own, if it could not open one
         */
        H open(LockRequest r, int held);
    }

    /**
     * Makes the grant of a provider for a request, its token and the holder of its row lock.
     *
     * @param <H> the provider's holders
     */
    @FunctionalInterface
    public interface Grants<H> {
        /**
         * @param r the request granted
         * @param token its fencing token
         * @param holder the transaction holding the row lock until release
         * @return the provider's grant
         */
        Grant grant(LockRequest r, long token, H holder);
    }

    private final Holders<H> holders;
    /** LEASE locks held now, each by a holder of its own. */
    private final AtomicInteger held = new AtomicInteger();

    /** @param holders opens the transactions that hold LEASE-scoped row locks */
    public RowLock(Holders<H> holders) {
        this.holders = holders;
    }

    /**
     * One attempt in LEASE scope: takes the row lock in a new holder's transaction, which then holds it until
     * {@link #release}; a holder that did not get it is ended.
     *
     * @param sql the dialect's statements
     * @param r the request; no lock wait longer than its {@code maxBlock}
     * @param grants makes the provider's grant
     * @return granted, or held if the row stayed locked by another transaction for the request's whole wait
     * @throws SQLException if the database failed
     */
    public Attempt acquire(LockTableSql sql, LockRequest r, Grants<H> grants) throws SQLException {
        H holder = holders.open(r, held.get());
        try {
            OptionalLong token = lock(holder.session(), sql.statements(), r, false);
            if (token.isPresent()) {
                held.incrementAndGet();
                return Attempt.granted(grants.grant(r, token.getAsLong(), holder));
            }
            holder.end();
            return Attempt.held();
        } catch (SQLException | RuntimeException e) {
            try {
                holder.end();
            } catch (SQLException | RuntimeException endFailed) {
                e.addSuppressed(endFailed);
            }
            throw e;
        }
    }

    /** @param callerTx {@code s} is in the caller's transaction: the row lock and a row created for it are the caller's */
    static OptionalLong lock(SqlSession s, Statements st, LockRequest r, boolean callerTx) throws SQLException {
        long deadline = System.nanoTime() + r.maxBlock().toNanos();
        OptionalLong token = st.lockRow(s, r.name(), r.maxBlock(), callerTx);
        if (token != null && token.isEmpty()) {
            if (!callerTx) {
                s.rollback();
            }
            if (!st.createFreeRow(s, r.name(), left(deadline), callerTx)) {
                return OptionalLong.empty();
            }
            if (!callerTx) {
                s.commit();
            }
            token = st.lockRow(s, r.name(), left(deadline), callerTx);
        }
        return token == null ? OptionalLong.empty() : token;
    }

    private static Duration left(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    /**
     * Checks that the connection holding a LEASE-scoped row lock still answers.
     *
     * @param holder the holder of the row lock
     * @param g its grant
     * @param lease the lease: the check waits at most a third of it
     * @throws LockNotHeldException if the lock was released, or the connection was lost, and the row lock with it
     */
    public void renew(H holder, Grant g, Duration lease) {
        synchronized (holder) {
            if (!holder.isOpen()) {
                throw new LockNotHeldException("lock " + g + " was released: its row lock ended with its transaction");
            }
            if (!holder.session().alive(lease)) {
                throw new LockNotHeldException("lock " + g + " is gone: the connection holding its row lock was lost");
            }
        }
    }

    /**
     * Ends the transaction holding a LEASE-scoped row lock ({@link Statements#endRowLock}), which frees it, and gives
     * its connection back.
     *
     * @param holder the holder of the row lock
     * @param sql the dialect's statements
     * @param g its grant
     * @throws LockNotHeldException if it was released already, or if the connection failed, so that the row lock may
     *     have ended before
     */
    public void release(H holder, LockTableSql sql, Grant g) {
        synchronized (holder) {
            if (!holder.isOpen()) {
                throw new LockNotHeldException("lock " + g + " was already released");
            }
            held.decrementAndGet();
            LockNotHeldException lost = null;
            try {
                sql.statements().endRowLock(holder.session());
            } catch (SQLException e) {
                lost = lost(g, e);
            } finally {
                try {
                    holder.close();
                } catch (SQLException e) {
                    if (lost == null) {
                        lost = lost(g, e);
                    } else {
                        lost.addSuppressed(e);
                    }
                }
            }
            if (lost != null) {
                throw lost;
            }
        }
    }

    private static LockNotHeldException lost(Grant g, SQLException e) {
        return new LockNotHeldException("lock " + g + " may have been lost before release: the connection holding its"
                + " row lock failed (" + e.getMessage() + ")");
    }

    /**
     * The row never shows a LEASE holder: a row locked by another transaction is reported as held by an unknown
     * owner, with token 0 (the core fills in the owner where its own manager holds the lock).
     *
     * @param s where the statements run, in a transaction of txlock's own
     * @param sql the dialect's statements
     * @param name the lock name
     * @param recorded the holder the name's row records, if any
     * @return {@code recorded} if present; else an unknown holder if another transaction locks the row; else empty
     * @throws SQLException if the database failed
     */
    public static Optional<LockInfo> inspect(SqlSession s, LockTableSql sql, String name, Optional<LockInfo> recorded)
            throws SQLException {
        if (recorded.isEmpty() && sql.statements().rowLockedByOther(s, name)) {
            return Optional.of(new LockInfo(name, null, null, 0, null, null, 1));
        }
        return recorded;
    }
}
