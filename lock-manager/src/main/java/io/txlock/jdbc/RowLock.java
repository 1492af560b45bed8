package io.txlock.jdbc;

import io.txlock.LockInfo;
import io.txlock.LockNotHeldException;
import io.txlock.spi.Grant;
import io.txlock.spi.LockRequest;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The algorithm of {@link io.txlock.Strategy#SELECT_FOR_UPDATE}, written once for the JDBC provider and the JPA
 * provider ({@code io.txlock.jpa}) over a {@link SqlSession}: the lock is the row lock of the name's row, taken by
 * one locking read that also draws the fencing token ({@link Statements#lockRow}); nothing is written. Waiters block
 * in the database, bounded by their wait. In LEASE scope the row lock belongs to the session's own transaction, which
 * stays open until {@link #release} or until the database notices that its connection died; a missing row is first
 * created FREE and committed, so that other nodes can see the row is locked. In TRANSACTION scope (the JDBC
 * provider's; the JPA provider takes the row lock through its entity manager) the row lock belongs to the caller's
 * transaction, and a missing row is created in it.
 *
 * <p><b>Internal to txlock.</b> Not an API: it may change in any release.
 */
public final class RowLock {

    private RowLock() {
    }

    /**
     * Takes the row lock in LEASE scope: in {@code s}'s own transaction, which then holds it until {@link #release}.
     *
     * @param s where the statements run, in a transaction of txlock's own
     * @param sql the dialect's statements
     * @param r the request; no lock wait longer than its {@code maxBlock}
     * @return the token, or empty if the row stayed locked by another transaction for the request's whole wait
     * @throws SQLException if the database failed
     */
    public static OptionalLong lock(SqlSession s, LockTableSql sql, LockRequest r) throws SQLException {
        return lock(s, sql.statements(), r, false);
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
     * @param s the session holding the row lock
     * @param g its grant
     * @param lease the lease: the check waits at most a third of it
     * @throws LockNotHeldException if the connection was lost, and the row lock with it
     */
    public static void renew(SqlSession s, Grant g, Duration lease) {
        if (!s.alive(lease)) {
            throw new LockNotHeldException("lock " + g + " is gone: the connection holding its row lock was lost");
        }
    }

    /**
     * Ends the transaction holding a LEASE-scoped row lock ({@link Statements#endRowLock}), which frees it.
     *
     * @param s the session holding the row lock
     * @param sql the dialect's statements
     * @param g its grant
     * @throws LockNotHeldException if the connection failed, so that the row lock may have ended before
     */
    public static void release(SqlSession s, LockTableSql sql, Grant g) {
        try {
            sql.statements().endRowLock(s);
        } catch (SQLException e) {
            throw new LockNotHeldException("lock " + g + " may have been lost before release: the connection holding its"
                    + " row lock failed (" + e.getMessage() + ")");
        }
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
