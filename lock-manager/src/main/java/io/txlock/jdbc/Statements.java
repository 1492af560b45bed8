package io.txlock.jdbc;

import io.txlock.LockInfo;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The SQL of one dialect for one lock table, and how to run it. This class declares which statements there are (the
 * methods returning {@code String}) and holds the JDBC code that runs them, which no dialect repeats. A statement
 * whose text every dialect runs alike is written once here, as standard SQL; one that MySQL and MariaDB share, once
 * in {@link InnoDbStatements}; a dialect's class ({@link PostgresStatements}, {@link MySqlStatements},
 * {@link MariaDbStatements}, {@link H2Statements}) writes only its own. A statement that may wait for a row lock
 * takes the wait: a dialect that bounds waits per statement writes its bound into the text.
 * {@code DialectSqlGoldenTest} renders every statement of every dialect, whole, as the database receives it, into
 * {@code sql/golden/*.sql}: the place to read a dialect's complete SQL, where a change to it shows in review. Lock
 * names and owners are always bound parameters; the table name is a validated identifier.
 *
 * <p>Tokens come from a sequence (or an AUTO_INCREMENT table) that no rollback takes back, so a name's fencing
 * token never repeats, even when a grant made inside a transaction is rolled back. The row strategies write the
 * token to {@code version}; a row lock writes nothing.
 *
 * <p>To add statements (a new strategy's, administration's): declare them here as methods returning
 * {@code String}, write them out here or in each dialect class that differs, and regenerate the golden files.
 */
abstract class Statements {

    /**
     * How long the reaper keeps a FREE row after its last release: deleting the row of a name in use would make
     * its next acquire create it again, and a zero-wait acquire could meet the reaper's row lock. Rows of
     * holders whose lease ran out, and expired claims, go as soon as they expire.
     */
    static final Duration FREE_RETENTION = Duration.ofMinutes(1);

    /** One lock wait never lasts longer than this; the core's loop waits again if the caller's wait is longer. */
    static final Duration MAX_SINGLE_WAIT = Duration.ofMinutes(10);

    final String table;

    Statements(String table) {
        this.table = table;
    }

    /**
     * @param dialect the database
     * @param table the lock table, a validated identifier
     * @return the statements of that dialect for that table
     */
    static Statements of(JdbcDialect dialect, String table) {
        return switch (dialect) {
            case H2 -> new H2Statements(table);
            case POSTGRESQL -> new PostgresStatements(table);
            case MYSQL -> new MySqlStatements(table);
            case MARIADB -> new MariaDbStatements(table);
        };
    }

    /** The most statement texts {@link #sql} keeps rendered: a dialect writes a few dozen. */
    private static final int RENDERED = 256;

    /** Statement texts rendered for the table, by their template: every statement is asked for at every use. */
    private final ConcurrentHashMap<String, String> rendered = new ConcurrentHashMap<>();

    /** @return {@code text} with {@code {table}} replaced by the lock table, rendered once per text */
    final String sql(String text) {
        String sql = rendered.get(text);
        if (sql == null) {
            sql = text.replace("{table}", table);
            if (rendered.size() < RENDERED) {
                rendered.put(text, sql);
            }
        }
        return sql;
    }

    /** The most statements {@link #rendered} keeps: once full, it starts afresh, and the texts in use come back at once. */
    private static final int RENDERED_COMPOSED = 256;

    /** A statement composed of parts, or bounding its waits, by name, argument and wait in milliseconds. */
    private record Composed(String statement, String argument, long waitMillis) {
    }

    /** Statement texts composed of parts ({@link #rendered}): a text is composed once, not at every use. */
    private final ConcurrentHashMap<Composed, String> composed = new ConcurrentHashMap<>();

    /**
     * @param statement the statement's name, unique in its dialect
     * @param wait the wait written into the text
     * @param render composes the text for a wait: called once per wait in milliseconds ({@link #waitMillis})
     * @return the text, composed once per wait
     */
    final String rendered(String statement, Duration wait, Function<Duration, String> render) {
        Composed key = new Composed(statement, null, waitMillis(wait));
        String sql = composed.get(key);
        return sql != null ? sql : keep(key, render.apply(wait));
    }

    /**
     * @param statement the statement's name, unique in its dialect
     * @param argument the statement text it is composed of, if any
     * @param render composes the text: called once per argument
     * @return the text, composed once
     */
    final String rendered(String statement, String argument, Supplier<String> render) {
        Composed key = new Composed(statement, argument, Long.MIN_VALUE);
        String sql = composed.get(key);
        return sql != null ? sql : keep(key, render.get());
    }

    private String keep(Composed key, String sql) {
        if (composed.size() >= RENDERED_COMPOSED) {
            composed.clear();
        }
        composed.put(key, sql);
        return sql;
    }

    // ---- the statements every dialect writes out. Parameters in order; "tokened" statements write a new token to
    // version and return it (see tokened), with a dialect's token parameter, if any, bound first.

    /** @return a query for version, state and milliseconds until {@code expires_at} (null if null); parameter: name */
    abstract String selectState();

    // administration (JdbcLockAdministration); a name prefix is matched with LIKE ... ESCAPE '!'

    /** @return the HELD rows with an unexpired lease, in name order; parameter: a LIKE pattern */
    abstract String adminHeld();

    /** @return every name, in name order; parameter: a LIKE pattern */
    String adminNames() {
        return sql("SELECT name FROM {table} WHERE name LIKE ? ESCAPE '!' ORDER BY name");
    }

    /** @return the names whose row no transaction locks now (locking them); parameter: a LIKE pattern */
    String adminUnlockedNames() {
        return sql("SELECT name FROM {table} WHERE name LIKE ? ESCAPE '!' FOR UPDATE SKIP LOCKED");
    }

    /** @return the version of a HELD row; parameter: name */
    String adminHeldVersion() {
        return sql("SELECT version FROM {table} WHERE name = ? AND state = 'HELD'");
    }

    /** @return the version of a HELD row no other transaction locks, locking it; parameter: name */
    String adminHeldVersionUnlocked() {
        return sql("SELECT version FROM {table} WHERE name = ? AND state = 'HELD' FOR UPDATE SKIP LOCKED");
    }

    /** @return delete a row still carrying a token; parameters: name, token */
    String adminDelete() {
        return sql("DELETE FROM {table} WHERE name = ? AND version = ?");
    }

    /**
     * @return tokened: inserts a HELD row, or nothing (or a duplicate-key error) if the name has a row; its token is
     *     drawn before the insert found the name free, so a grant takes a new one ({@link #retoken}) once it holds the
     *     row; parameters: name, owner host, owner id, lease in milliseconds
     */
    abstract String insertHeld(Duration wait);

    /**
     * @return tokened: the compare-and-set that grants a row that is free or whose lease ran out, in one statement;
     *     its token is drawn under the row lock where {@link #takeOverDrawsTokenUnderRowLock()}; parameters: owner
     *     host, owner id, lease in milliseconds, name
     */
    abstract String takeOver(Duration wait);

    /**
     * @return whether {@link #takeOver} draws its token once it holds the row lock, after any transaction that
     *     changed the row before it ended, so that the token is greater than that of every earlier holder and needs
     *     no {@link #retoken}; else the token is drawn before the statement and bound to it (MySQL's token table)
     */
    abstract boolean takeOverDrawsTokenUnderRowLock();

    /** @return tokened: inserts a FREE row, or nothing (or a duplicate-key error) if the name has a row; parameter: name */
    abstract String insertFree(Duration wait);

    /** @return tokened: a new token for a row still at a version; parameters: name, version */
    abstract String retoken();

    /** @return extends a lease; parameters: lease in milliseconds, name, token, owner id */
    abstract String renew();

    /** @return sets a held row free; parameters: name, token, owner id */
    abstract String free();

    /** @return deletes a held row; parameters: name, token, owner id */
    String delete() {
        return sql("DELETE FROM {table} WHERE name = ? AND version = ? AND owner_id = ?");
    }

    /** @return the holder of a held, unexpired row: version, host, owner, hold count, acquired, expires; parameter: name */
    abstract String inspect();

    /** @return the whole row of a name if it is held and unexpired (the JPA entity's columns); parameter: name */
    abstract String inspectRow();

    /** @return a row if the name has one; parameter: name */
    String rowExists() {
        return sql("SELECT 1 FROM {table} WHERE name = ?");
    }

    /** @return a row only if the name's row is not locked by another transaction; parameter: name */
    String lockProbe() {
        return sql("SELECT 1 FROM {table} WHERE name = ? FOR UPDATE SKIP LOCKED");
    }

    /** @return up to {@code ?} names whose lease (or a free row's retention) ran out, locked, skipping locked rows */
    abstract String reapCandidates();

    /** @return deletes one name whose lease (or retention) ran out; parameter: name */
    abstract String reapDelete();

    /**
     * The claim of {@link JdbcClaims}: a row HELD by owner {@code ?}, token 0, expiring after {@code ?} milliseconds
     * of retention, inserted so that, on a duplicate key, it waits for an uncommitted claim's transaction and then
     * reports the duplicate without failing the caller's transaction: one changed row for a new claim, any other
     * count (or a duplicate-key error) for a duplicate (see {@link #claim(SqlSession, String, Object...)}).
     *
     * @return the claim; parameters: name, owner host, owner id, retention in milliseconds
     */
    abstract String insertClaim(Duration wait);

    /** @return a query for one row: the next fencing token and the database clock in microseconds since the epoch */
    abstract String selectTokenAndNow();

    /** @return a statement to run just before {@link #selectTokenAndNow()} in the same transaction, or null */
    String tokenInsert() {
        return null;
    }

    /** @return a query for the newest used token row (MySQL's token table), or null where tokens need no purging */
    String newestToken() {
        return null;
    }

    /** @return a delete of up to {@code batch} token rows below {@code ?} (MySQL's token table), or null */
    String purgeTokensBelow(int batch) {
        return null;
    }

    /** @return the statement that opens the savepoint an attempt in a caller's transaction runs in, or null for none */
    String savepoint() {
        return null;
    }

    /** @return ends the {@link #savepoint()}, keeping what was done in it */
    String releaseSavepoint() {
        return null;
    }

    /** @return undoes everything since the {@link #savepoint()}, settings and row locks included */
    String rollbackToSavepoint() {
        return null;
    }

    /**
     * @param maxBlock the longest wait
     * @return how to bound every lock wait of the session, rather than of one statement
     */
    abstract LockTableSql.SessionWait sessionWait(Duration maxBlock);

    /**
     * @param maxBlock the longest wait
     * @return the JPA lock-timeout hint (milliseconds) for a wait bounded by {@link #sessionWait}: any hint of 0 or
     *     more makes the provider report a conflict as a {@code LockTimeoutException}
     */
    int jpaLockTimeoutHint(Duration maxBlock) {
        return (int) waitMillis(maxBlock);
    }

    // ---- the advisory locks of Strategy.ADVISORY, keyed by AdvisoryKeys; null where the database has none (H2)

    /** @return a query for the schema or database the lock table is in: the namespace of {@link AdvisoryKeys#keyText} */
    String advisoryNamespace() {
        return null;
    }

    /**
     * @return takes an advisory lock of the session, waiting up to {@code wait}, and draws a token once it holds it:
     *     the token, or SQL NULL if another session held the lock for the whole wait (see {@link #takeAdvisoryLock});
     *     parameters: the {@link #advisoryKey}, the {@link #advisoryWait}
     */
    String advisoryLock(Duration wait) {
        return null;
    }

    /** @return lets go of an advisory lock of the session: 1 if the session held it; parameter: the key */
    String advisoryUnlock() {
        return null;
    }

    /** @return lets go of every advisory lock of the session */
    String advisoryUnlockAll() {
        return null;
    }

    /** @return a row if some session holds the advisory lock; parameter: the key */
    String advisoryLocked() {
        return null;
    }

    /** @return the key the advisory statements take for a {@link AdvisoryKeys#keyText key text} */
    Object advisoryKey(String keyText) {
        throw noAdvisoryLocks();
    }

    /**
     * @return whether an advisory lock taken in the caller's transaction ends with it (PostgreSQL's
     *     {@code pg_advisory_xact_lock}); else every advisory lock belongs to a session, and is taken on a connection
     *     of the provider's own
     */
    boolean advisoryLocksEndWithTransaction() {
        throw noAdvisoryLocks();
    }

    /**
     * Takes the advisory lock of {@code key}, then draws a fencing token while holding it: the
     * {@link io.txlock.Strategy#ADVISORY} grant. Waits in the database for up to {@code maxBlock}.
     *
     * @param key the lock's {@link #advisoryKey}
     * @param callerTx take the lock in the caller's transaction, to end with it ({@link #advisoryLocksEndWithTransaction});
     *     else as a lock of {@code s}'s session
     * @return the token, or empty if another session held the lock for the whole wait
     */
    OptionalLong takeAdvisoryLock(SqlSession s, Object key, Duration maxBlock, boolean callerTx) throws SQLException {
        return s.queryNullableLong(advisoryLock(maxBlock), key, advisoryWait(maxBlock));
    }

    /** @return the wait parameter of {@link #advisoryLock}, bound after the key */
    Object advisoryWait(Duration maxBlock) {
        throw noAdvisoryLocks();
    }

    /** @return whether {@code s}'s session held the advisory lock of {@code key} ({@link #advisoryKey}) and has now let it go */
    boolean releaseAdvisoryLock(SqlSession s, Object key) throws SQLException {
        return s.queryNullableLong(advisoryUnlock(), key).orElse(0) == 1;
    }

    /**
     * Lets go of every advisory lock of {@code c}'s session, so that no pooled connection keeps one: untracked, so
     * that it also runs after a cancelled attempt.
     */
    void releaseAdvisoryLocks(Connection c) throws SQLException {
        try (java.sql.Statement statement = c.createStatement()) {
            statement.execute(advisoryUnlockAll());
        }
    }

    /** @return whether some session holds the advisory lock of {@code key} ({@link #advisoryKey}) */
    boolean advisoryLockHeld(SqlSession s, Object key) throws SQLException {
        return s.queryNullableLong(advisoryLocked(), key).isPresent();
    }

    private UnsupportedOperationException noAdvisoryLocks() {
        return new UnsupportedOperationException(getClass().getSimpleName() + ": this database has no advisory locks");
    }

    // ---- the queue that waiters of the row strategies wait in (FairQueue): a session lock per name, keyed in the
    // statements themselves; null where the dialect has none (H2)

    /**
     * @return takes the name's queue lock for the session, waiting up to the wait bound after the name: one row once
     *     taken (on PostgreSQL the name of the channel its releases notify), SQL NULL or a lock timeout if the wait
     *     ran out; parameters: name, the wait ({@link #queueWait}): one text for every wait
     */
    String queueLock() {
        return null;
    }

    /** @return the wait of {@link #queueLock}, bound after the name */
    Object queueWait(Duration wait) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + ": waiters do not queue");
    }

    /** @return the parameters of {@link #queueLockAndTakeOver}, whose waits are bound: one text for every wait */
    Object[] queueLockAndTakeOverParameters(io.txlock.spi.LockRequest r, Duration wait) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + ": no queueLockAndTakeOver");
    }

    /** @return lets go of the name's queue lock held by the session; parameter: name */
    String queueUnlock() {
        return null;
    }

    /**
     * @return {@link #queueLock} and, once the session holds the queue lock, {@link #takeOver} in the same round trip
     *     (statements for {@link SqlSession#queryFirstRows}): the next waiter's turn costs no round trip between its
     *     wake-up and its compare-and-set. Results: {@code queueLock}'s, then, once queued, the token the
     *     compare-and-set wrote (no row, or SQL NULL, if it granted nothing); or one result whose row holds both, in
     *     that order. If it fails, the session may hold the
     *     queue lock: let go of it ({@link #leaveQueue()}). Parameters: {@link #queueLockAndTakeOverParameters}. Null where
     *     waiters do not queue, or where the dialect has no such round trip (MySQL: {@link #queueLock}, then the
     *     compare-and-set in statements of its own, {@link MySqlStatements#takeQueue})
     */
    String queueLockAndTakeOver() {
        return null;
    }

    /**
     * @return {@link #free()} and then the release of the name's queue lock held by the session, in one round trip,
     *     the next waiter woken only once the freed row is committed (for {@link SqlSession#queryLongOfLast}): the
     *     number of rows freed (MariaDB passes the row to the next waiter instead of freeing it); parameters:
     *     {@link #freeLeavingQueueParameters}. Null where waiters do not queue, or where
     *     the dialect has no such round trip (MySQL: {@link #free()}, then {@link #queueUnlock()})
     */
    String freeLeavingQueue() {
        return null;
    }

    /**
     * @param g the grant released
     * @param lease the lease it was granted for
     * @return the parameters of {@link #freeLeavingQueue}
     */
    Object[] freeLeavingQueueParameters(JdbcGrant g, Duration lease) {
        return new Object[] {g.name(), g.fencingToken(), g.ownerId(), g.name()};
    }

    /**
     * @return lets go of the queue lock of a session whose queue statement failed, and of a row that may have been
     *     passed to it with the queue lock where the dialect passes rows ({@link #freeLeavingQueue}); parameters:
     *     {@link #leaveQueueParameters}
     */
    String leaveQueue() {
        return queueUnlock();
    }

    /** @return the parameters of {@link #leaveQueue()} */
    Object[] leaveQueueParameters(String name) {
        return new Object[] {name};
    }

    /**
     * @return {@link #selectState()} as a waiter outside the queue must see it: a row that anyone queues for shows
     *     HELD, with what is left of its lease, unless this session heads the queue; parameters: name, name
     */
    String selectStateUnqueued() {
        return null;
    }

    /**
     * @return {@link #takeOver} as an attempt outside the name's queue runs it: it changes nothing while another session
     *     queues for the name (the gate of {@link #selectStateUnqueued()}), so nobody takes a row past the queue; null
     *     where waiters do not queue; parameters as {@code takeOver}'s
     */
    String takeOverUnqueued(Duration wait) {
        return null;
    }

    /**
     * @return {@link #insertHeld} as an attempt outside the name's queue runs it: it inserts nothing while another
     *     session queues for the name, so a holder that deleted its row ({@link io.txlock.Strategy#UNIQUE_INSERT})
     *     cannot take the name again past the queue's head; null where waiters do not queue; parameters as
     *     {@code insertHeld}'s, then name
     */
    String insertHeldUnqueued(Duration wait) {
        return null;
    }

    /** @return whether an attempt for {@code r} must pass the queue's gate: LEASE scope, outside the queue */
    final boolean gated(io.txlock.spi.LockRequest r) {
        return queueGate && !r.transactional();
    }

    /**
     * @param release a row strategy's release ({@link #free()} or {@link #delete()})
     * @return the release that also wakes the head of the name's queue (notifies its channel) where the dialect can:
     *     a query for the number of rows released; parameters as {@code release}'s. Null where nothing wakes the head
     */
    String releaseWaking(String release) {
        return null;
    }

    /** Whether {@link #readState(SqlSession, io.txlock.spi.LockRequest)} may use {@link #selectStateUnqueued()}. */
    private boolean queueGate = true;

    /** Whether waiters of the row strategies can queue in this database: known after the first {@link #queues()}. */
    private Boolean queues;

    /** @return whether waiters of the row strategies can queue in this database */
    final boolean queues() {
        Boolean known = queues;
        if (known == null) {
            known = queueLock() != null;
            queues = known;
        }
        return known;
    }

    /**
     * @param dialect this dialect
     * @return these statements, reading rows as they are, queued for or not (for a waiter whose queue is stuck)
     */
    final Statements ignoringQueue(JdbcDialect dialect) {
        Statements copy = of(dialect, table);
        copy.queueGate = false;
        return copy;
    }

    /**
     * The outcome of taking a name's queue lock: null when the wait ran out.
     *
     * @param channel the channel the head listens on (empty where releases notify none)
     * @param token the token of the row taken with the queue lock, empty if none; null if none was tried
     * @param passedOwner the owner written to the row, where the release passed it to this session as it was; null
     *     where the session wrote the request's owner
     * @param passedLeaseMillis the lease of a passed row, counted from before this session asked for the queue lock
     */
    record QueueTurn(String channel, OptionalLong token, String passedOwner, long passedLeaseMillis) {
        QueueTurn(String channel, OptionalLong token) {
            this(channel, token, null, 0);
        }
    }

    /**
     * Takes the name's queue lock for the session of {@code s}, and the row with it where the dialect can in the same
     * round trip ({@link #queueLockAndTakeOver}).
     *
     * @return null if the wait ran out; else the channel the head listens on (empty where releases notify none) and
     *     the token of the row taken with the queue lock, or null if none was tried
     * @throws SQLException if it failed: the session may hold the queue lock
     */
    QueueTurn takeQueue(SqlSession s, io.txlock.spi.LockRequest r, Duration wait) throws SQLException {
        String withRow = queueLockAndTakeOver();
        try {
            if (withRow == null) {
                Object[] row = s.queryRow(queueLock(), r.name(), queueWait(wait));
                return row == null || row[0] == null ? null : new QueueTurn(String.valueOf(row[0]), null);
            }
            List<Object[]> results = s.queryFirstRows(withRow, queueLockAndTakeOverParameters(r, wait));
            Object[] queued = results.isEmpty() ? null : results.get(0);
            if (queued == null || queued[0] == null) {
                return null;
            }
            Object won = results.size() >= 2 ? lastRowFirst(results) : queued.length >= 2 ? queued[1] : null;
            OptionalLong token = won == null ? OptionalLong.empty() : OptionalLong.of(((Number) won).longValue());
            if (won != null && queued.length >= 4 && queued[2] != null) {
                return new QueueTurn(String.valueOf(queued[0]), token, String.valueOf(queued[2]), ((Number) queued[3]).longValue());
            }
            return new QueueTurn(String.valueOf(queued[0]), token);
        } catch (SQLException e) {
            if (lockUnavailable(e) && withRow == null) {
                return null;
            }
            throw e;
        }
    }

    private static Object lastRowFirst(List<Object[]> results) {
        Object[] last = results.get(results.size() - 1);
        return last == null ? null : last[0];
    }

    // ---- how this dialect runs them

    /**
     * @return whether a claim must not wait in the database for a concurrent claim's transaction, but try again
     *     without waiting until it ended; see {@link MySqlStatements#claimPolls()}
     */
    boolean claimPolls() {
        return false;
    }

    /**
     * Runs a claim statement.
     *
     * @return true if this statement inserted the claim, false if the key was claimed before
     */
    boolean claim(SqlSession s, String sql, Object... params) throws SQLException {
        try {
            return s.update(sql, params) == 1;
        } catch (SQLException e) {
            if (duplicateKey(e)) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Takes the row lock of a name's existing row and draws a fencing token while holding it: the
     * {@link io.txlock.Strategy#SELECT_FOR_UPDATE} grant. The token is drawn after the lock, never before
     * waiting for it, so it is greater than the token of the holder it waited for. Writes nothing: the row lock is
     * the lock, and it ends with the transaction.
     *
     * @param maxBlock the longest wait for the row lock
     * @param callerTx the connection is in the caller's transaction: leave it usable and its settings as they were
     * @return the token; empty if the name has no row; null if another transaction held the row lock all along
     */
    abstract OptionalLong lockRow(SqlSession s, String name, Duration maxBlock, boolean callerTx) throws SQLException;

    /**
     * Runs a tokened statement with {@code params}, after drawing and binding first the token where the dialect
     * draws it with a statement of its own; by default the statement returns the token it wrote.
     *
     * @return the new token, or empty if no row was granted
     */
    OptionalLong tokened(SqlSession s, String sql, Object... params) throws SQLException {
        return s.queryLong(sql, params);
    }

    /**
     * {@link #tokened} for a statement gated by the name's queue ({@link #takeOverUnqueued}, {@link #insertHeldUnqueued}):
     * by default the same. A dialect that draws the token with a statement of its own draws it only while nobody else
     * queues for the name, and then runs nothing else.
     *
     * @param name the lock's name
     * @return the new token, or empty if no row was granted
     */
    OptionalLong tokenedUnqueued(SqlSession s, String name, String sql, Object... params) throws SQLException {
        return tokened(s, sql, params);
    }

    /**
     * Gives a grant its fencing token once the caller holds the lock. The statement that won the lock drew its
     * token before it won (before its insert found the name free, or before it waited for a row lock where the
     * token is bound to it), so another holder may have won and drawn a greater token in between; a token drawn
     * while holding is greater than that of every earlier holder, who drew theirs while holding, before they
     * released.
     *
     * @param version the token the winning statement wrote
     * @return the grant's token, or empty if the row no longer carries {@code version}
     */
    OptionalLong retoken(SqlSession s, String name, long version) throws SQLException {
        return tokened(s, retoken(), name, version);
    }

    /**
     * Grants a name that has no row: inserts it HELD ({@link #insertHeld}), then, holding it, gives it a token drawn
     * now ({@link #retoken}).
     *
     * @return the grant's token, or empty if the name has a row
     */
    OptionalLong insertGrant(SqlSession s, io.txlock.spi.LockRequest r) throws SQLException {
        String unqueued = gated(r) ? insertHeldUnqueued(r.maxBlock()) : null;
        OptionalLong inserted;
        try {
            inserted = unqueued != null
                    ? tokenedUnqueued(s, r.name(), unqueued, r.name(), r.owner().host(), r.owner().id(), r.lease().toMillis(), r.name())
                    : tokened(s, insertHeld(r.maxBlock()), r.name(), r.owner().host(), r.owner().id(), r.lease().toMillis());
        } catch (SQLException e) {
            if (duplicateKey(e)) {
                return OptionalLong.empty();
            }
            throw e;
        }
        return inserted.isPresent() ? retoken(s, r.name(), inserted.getAsLong()) : inserted;
    }

    /**
     * Grants a row that is free or whose lease ran out ({@link #takeOver}), with a token drawn while holding it.
     *
     * @return the grant's token, or empty if the row is held (or missing)
     */
    OptionalLong takeOverGrant(SqlSession s, io.txlock.spi.LockRequest r) throws SQLException {
        String unqueued = gated(r) ? takeOverUnqueued(r.maxBlock()) : null;
        OptionalLong won = unqueued != null
                ? tokenedUnqueued(s, r.name(), unqueued, r.owner().host(), r.owner().id(), r.lease().toMillis(), r.name())
                : tokened(s, takeOver(r.maxBlock()), r.owner().host(), r.owner().id(), r.lease().toMillis(), r.name());
        return won.isPresent() && !takeOverDrawsTokenUnderRowLock() ? retoken(s, r.name(), won.getAsLong()) : won;
    }

    /**
     * Runs {@code call}, whose waiting statements were given the same wait, so that no lock wait in it lasts longer
     * than {@code maxBlock}.
     *
     * @param maxBlock the longest wait
     * @param callerTx the connection is in the caller's transaction: leave it usable and its settings as they were
     * @return the result, or null if a lock wait ran out (or the database chose this statement as deadlock victim
     *     without rolling back the transaction)
     */
    abstract <T> T bounded(SqlSession s, Duration maxBlock, boolean callerTx, SqlCall<T> call) throws SQLException;

    /**
     * {@link #bounded} for a dialect that bounds lock waits by the session's {@link #sessionWait}: set for the call,
     * set back after it.
     */
    final <T> T boundedBySession(SqlSession s, Duration maxBlock, boolean callerTx, SqlCall<T> call) throws SQLException {
        LockTableSql.SessionWait wait = sessionWait(maxBlock);
        String previous = wait.readSetting(s);
        wait.apply(s, wait.value());
        try {
            return call.run();
        } catch (SQLException e) {
            if (lockUnavailable(e) && !(callerTx && abortsTransaction(e))) {
                return null;
            }
            throw e;
        } finally {
            wait.apply(s, previous);
        }
    }

    /**
     * Ends the transaction of a LEASE-scoped row lock, which wrote nothing: by default a rollback, which needs no
     * durable log write (a commit after a row lock does, on PostgreSQL).
     */
    void endRowLock(SqlSession s) throws SQLException {
        s.rollback();
    }

    /** What an error of the database means to a lock. */
    enum SqlError {
        /** Another transaction holds the row: lock wait timeout, NOWAIT, deadlock victim (only the statement undone), serialization. */
        LOCK_UNAVAILABLE,
        /** A deadlock victim whose whole transaction the database rolled back. */
        DEADLOCK_ROLLED_BACK,
        /** A unique-key violation. */
        DUPLICATE_KEY,
        /** Anything else: a failure of the backend. */
        OTHER
    }

    /** @return what the error means: this dialect's table of SQLStates and vendor codes */
    abstract SqlError classify(SQLException e);

    /** @return whether the error means "another transaction holds it": lock wait timeout, NOWAIT, deadlock, serialization */
    final boolean lockUnavailable(SQLException e) {
        SqlError kind = classify(e);
        return kind == SqlError.LOCK_UNAVAILABLE || kind == SqlError.DEADLOCK_ROLLED_BACK;
    }

    /** @return whether the error is a unique-key violation */
    final boolean duplicateKey(SQLException e) {
        return classify(e) == SqlError.DUPLICATE_KEY;
    }

    /** @return whether the database rolled back the whole transaction, not just the statement (deadlock victims) */
    final boolean abortsTransaction(SQLException e) {
        return classify(e) == SqlError.DEADLOCK_ROLLED_BACK;
    }

    /** @return {@code maxBlock} clamped to {@link #MAX_SINGLE_WAIT}, in milliseconds */
    static long waitMillis(Duration maxBlock) {
        return Math.min(maxBlock.toMillis(), MAX_SINGLE_WAIT.toMillis());
    }

    // ---- helpers for subclasses and strategies

    static PreparedStatement prepare(Connection c, String sql, Object... params) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        try {
            CancellableStatements.track(ps);
            bind(ps, 1, params);
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
        return ps;
    }

    static void bind(PreparedStatement ps, int first, Object... params) throws SQLException {
        for (int i = 0; i < params.length; i++) {
            Object p = params[i];
            if (p instanceof Long l) {
                ps.setLong(first + i, l);
            } else if (p instanceof Integer n) {
                ps.setInt(first + i, n);
            } else if (p instanceof java.math.BigDecimal d) {
                ps.setBigDecimal(first + i, d);
            } else {
                ps.setString(first + i, (String) p);
            }
        }
    }

    static int update(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, params)) {
            return ps.executeUpdate();
        }
    }

    /**
     * Runs a query with {@code execute()}, not {@code executeQuery()}: MySQL Connector/J refuses the latter for a
     * query that starts with MariaDB's {@code SET STATEMENT … FOR}, which it takes for a statement without results.
     */
    static OptionalLong queryLong(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, params)) {
            if (!ps.execute()) {
                throw new SQLException("expected a result set from " + sql);
            }
            try (ResultSet rs = ps.getResultSet()) {
                return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
            }
        }
    }


    /** The row of a name as the acquire strategies see it. */
    record RowState(long version, boolean held, Long millisLeft) {
        boolean expired() {
            return millisLeft != null && millisLeft < 0;
        }
    }

    /**
     * The row as the row strategies must see it before granting: the latest committed state. A plain read
     * does, except in a MySQL REPEATABLE READ transaction, whose snapshot would never show the row freed.
     */
    RowState readState(SqlSession s, io.txlock.spi.LockRequest r) throws SQLException {
        if (gated(r) && selectStateUnqueued() != null) {
            return rowState(s.queryRow(selectStateUnqueued(), r.name(), r.name()));
        }
        return readState(s, r.name());
    }

    /**
     * @return whether a row created inside a caller's transaction that then rolls back can deadlock the
     *     transactions waiting for it (InnoDB turns their waits into gap locks), so that rows must be created
     *     outside the caller's transaction
     */
    boolean rowsCreatedInACallerTransactionCanDeadlock() {
        return false;
    }

    /**
     * Creates a name's row FREE unless it exists.
     *
     * @param maxBlock how long to wait for another transaction's uncommitted row of the same name
     * @param callerTx the connection is in the caller's transaction: leave it usable and its settings as they were
     * @return true when the row is there (created, or found); false if the wait ran out
     */
    boolean createFreeRow(SqlSession s, String name, Duration maxBlock, boolean callerTx) throws SQLException {
        return bounded(s, maxBlock, callerTx, () -> {
            try {
                tokened(s, insertFree(maxBlock), name);
            } catch (SQLException e) {
                if (!duplicateKey(e)) {
                    throw e;
                }
            }
            return Boolean.TRUE;
        }) != null;
    }

    /** @return whether {@link #readState(SqlSession, io.txlock.spi.LockRequest)} creates and locks a missing row first */
    boolean locksBeforeReading(boolean callerTx) {
        return false;
    }

    RowState readState(SqlSession s, String name) throws SQLException {
        return rowState(s.queryRow(selectState(), name));
    }

    /** @return the state of a row of {@link #selectState()}'s columns, or null for no row */
    static RowState rowState(Object[] row) {
        if (row == null) {
            return null;
        }
        return new RowState(((Number) row[0]).longValue(), "HELD".equals(String.valueOf(row[1]).trim()),
                row[2] == null ? null : ((Number) row[2]).longValue());
    }

    /** @return the holder of a name as recorded in its row, if it is held and its lease has not run out */
    Optional<LockInfo> readInfo(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = prepare(c, inspect(), name); ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return Optional.empty();
            }
            return Optional.of(new LockInfo(name, rs.getString(2), rs.getString(3), rs.getLong(1),
                    instant(rs, 5), instant(rs, 6), Math.max(1, rs.getInt(4))));
        }
    }

    /** @return whether the name's row exists and another transaction holds its row lock */
    boolean rowLockedByOther(SqlSession s, String name) throws SQLException {
        if (s.queryLong(rowExists(), name).isEmpty()) {
            return false;
        }
        return s.queryLong(lockProbe(), name).isEmpty();
    }

    /** Deletes up to {@code batch} rows whose lease or retention ran out, skipping rows locked right now. */
    int reap(Connection c, int batch) throws SQLException {
        List<String> names = new ArrayList<>();
        try (PreparedStatement ps = prepare(c, reapCandidates(), batch); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        if (names.isEmpty()) {
            return 0;
        }
        try (PreparedStatement ps = c.prepareStatement(reapDelete())) {
            for (String name : names) {
                ps.setString(1, name);
                ps.addBatch();
            }
            int deleted = 0;
            for (int n : ps.executeBatch()) {
                deleted += n == java.sql.Statement.SUCCESS_NO_INFO ? 1 : Math.max(0, n);
            }
            return deleted;
        }
    }

    /**
     * Deletes used token rows below the newest (where tokens come from a table), without waiting for the token rows
     * of transactions still open (a SELECT_FOR_UPDATE holder's, a caller's): the purge would wait for them up to
     * {@code innodb_lock_wait_timeout} (50 s by default) on every run and then fail. It tries again on the next run
     * instead. InnoDB keeps the AUTO_INCREMENT counter anyway.
     *
     * @return the number of token rows deleted
     */
    int purgeUsedTokens(SqlSession s, int batch) throws SQLException {
        if (newestToken() == null) {
            return 0;
        }
        Integer purged = boundedBySession(s, Duration.ZERO, false, () -> {
            OptionalLong newest = s.queryLong(newestToken());
            return newest.isEmpty() || newest.getAsLong() == 0 ? 0 : s.update(purgeTokensBelow(batch), newest.getAsLong());
        });
        return purged == null ? 0 : purged;
    }

    /**
     * Runs work that must leave the caller's transaction usable whatever fails: in the dialect's
     * {@link #savepoint()} where it has one.
     */
    final <T> T inSavepoint(SqlSession s, SqlCall<T> work) throws SQLException {
        if (savepoint() == null) {
            return work.run();
        }
        s.control(savepoint());
        T result;
        try {
            result = work.run();
        } catch (SQLException | RuntimeException e) {
            try {
                s.control(rollbackToSavepoint());
                s.control(releaseSavepoint());
            } catch (SQLException undoFailed) {
                e.addSuppressed(undoFailed);
            }
            throw e;
        }
        s.control(releaseSavepoint());
        return result;
    }

    /** @return a timestamp column written with the database clock as an instant */
    Instant instant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    /** A unit of JDBC work. */
    @FunctionalInterface
    interface SqlCall<T> {
        T run() throws SQLException;
    }
}
