package io.txlock.jdbc;

import io.txlock.LockNotHeldException;
import io.txlock.Strategy;
import io.txlock.spi.Attempt;
import io.txlock.spi.Grant;
import io.txlock.spi.LockRequest;
import java.sql.SQLException;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * The algorithm of the strategies whose grant is the row's committed state, with a lease in database time:
 * {@link OptimisticVersion} and {@link UniqueInsert}, written once for the JDBC provider and the JPA provider
 * ({@code io.txlock.jpa}) over a {@link SqlSession}. A grant's token is greater than that of every earlier holder:
 * an existing row is won by one compare-and-set that draws its token under the row lock
 * ({@link Statements#takeOverGrant}); a missing row is inserted, with a token drawn before the insert found the name
 * free, and then, holding the row, given a token drawn now ({@link Statements#insertGrant}). Renewal and release are
 * guarded by name, token and owner.
 *
 * <p><b>Internal to txlock.</b> Not an API: it may change in any release.
 */
public abstract sealed class RowLease permits OptimisticVersion, UniqueInsert {

    /** Makes the grant of a provider for a request and its token. */
    @FunctionalInterface
    public interface Grants {
        /**
         * @param r the request granted
         * @param token its fencing token
         * @return the provider's grant
         */
        Grant grant(LockRequest r, long token);
    }

    RowLease() {
    }

    /**
     * @param strategy {@link Strategy#OPTIMISTIC_VERSION} or {@link Strategy#UNIQUE_INSERT}
     * @return its algorithm
     * @throws IllegalArgumentException for another strategy
     */
    public static RowLease of(Strategy strategy) {
        return switch (strategy) {
            case OPTIMISTIC_VERSION -> new OptimisticVersion();
            case UNIQUE_INSERT -> new UniqueInsert();
            default -> throw new IllegalArgumentException(strategy + " is not a row-lease strategy");
        };
    }

    /** One attempt, its waiting statements given {@code r}'s wait. */
    abstract Attempt acquireRow(SqlSession s, Statements st, LockRequest r, Grants grants) throws SQLException;

    /** @return the statement that frees a grant's row; parameters: name, token, owner id */
    abstract String releaseRow(Statements st);

    /**
     * One attempt on {@code s}, no lock wait in it longer than {@code r.maxBlock()}; in the caller's transaction if
     * {@code r.transactional()}.
     *
     * @param s where the statements run
     * @param sql the dialect's statements
     * @param r the request
     * @param grants makes the provider's grant
     * @return the outcome
     * @throws SQLException if the database failed
     */
    public final Attempt attempt(SqlSession s, LockTableSql sql, LockRequest r, Grants grants) throws SQLException {
        Statements st = sql.statements();
        Attempt a = st.bounded(s, r.maxBlock(), r.transactional(), () -> acquireRow(s, st, r, grants));
        return a == null ? Attempt.held() : a;
    }

    /**
     * Extends a grant's lease to {@code lease} from now, in the database's clock.
     *
     * @param s where the statements run
     * @param sql the dialect's statements
     * @param g the grant
     * @param ownerId the owner written to its row
     * @param lease the new lease
     * @throws LockNotHeldException if the row is no longer the grant's
     * @throws SQLException if the database failed
     */
    public final void renew(SqlSession s, LockTableSql sql, Grant g, String ownerId, Duration lease) throws SQLException {
        if (s.update(sql.statements().renew(), lease.toMillis(), g.name(), g.fencingToken(), ownerId) == 0) {
            throw notHeld(g, ownerId);
        }
    }

    /**
     * Frees a grant's row: sets it free ({@link Strategy#OPTIMISTIC_VERSION}) or deletes it
     * ({@link Strategy#UNIQUE_INSERT}).
     *
     * @param s where the statements run
     * @param sql the dialect's statements
     * @param g the grant
     * @param ownerId the owner written to its row
     * @throws LockNotHeldException if the row is no longer the grant's
     * @throws SQLException if the database failed
     */
    public final void release(SqlSession s, LockTableSql sql, Grant g, String ownerId) throws SQLException {
        if (free(s, sql, g, ownerId) == 0) {
            throw notHeld(g, ownerId);
        }
    }

    /**
     * {@link #release} that leaves it to the caller what no longer holding the row means.
     *
     * @param s where the statements run
     * @param sql the dialect's statements
     * @param g the grant
     * @param ownerId the owner written to its row
     * @return the number of rows freed: 0 if the row is no longer the grant's
     * @throws SQLException if the database failed
     */
    public final int free(SqlSession s, LockTableSql sql, Grant g, String ownerId) throws SQLException {
        return s.update(releaseRow(sql.statements()), g.name(), g.fencingToken(), ownerId);
    }

    static LockNotHeldException notHeld(Grant g, String ownerId) {
        return new LockNotHeldException("lock " + g + " is no longer held by " + ownerId
                + ": its lease ran out and the row was taken over or reaped");
    }

    /** @return granted with {@code token}, or held if it is empty */
    static Attempt granted(LockRequest r, OptionalLong token, Grants grants) {
        return token.isPresent() ? Attempt.granted(grants.grant(r, token.getAsLong())) : Attempt.held();
    }

    static Attempt heldUntil(Statements.RowState row) {
        return row.millisLeft() == null ? Attempt.held() : Attempt.heldFor(Duration.ofMillis(row.millisLeft()));
    }
}
