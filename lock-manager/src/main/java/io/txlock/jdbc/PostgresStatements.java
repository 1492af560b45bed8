package io.txlock.jdbc;

import io.txlock.spi.LockRequest;
import java.sql.SQLException;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * PostgreSQL. The clock is {@code clock_timestamp()} (not {@code now()}, which stands still for a whole
 * transaction); tokens come from {@code <table>_token_seq}, returned by {@code RETURNING}. An uncontended row-lease
 * grant is one round trip: the compare-and-set {@link #takeOver} (its token drawn under the row lock, see
 * {@link #takeOverDrawsTokenUnderRowLock}), or the insert and its retoken sent together
 * ({@link #insertHeldAndRetoken}). Lock waits are bounded by
 * {@code lock_timeout}: a waiting statement sets it itself, from a one-row
 * {@code FROM (SELECT set_config('lock_timeout', …, true))}, at no extra round trip; inside the caller's
 * transaction, where any error would abort it, the statements run in a savepoint with the setting saved and
 * restored around them ({@link #bounded}).
 */
final class PostgresStatements extends Statements {

    PostgresStatements(String table) {
        super(table);
    }

    /** By SQLState; a deadlock victim's statement ran in a savepoint or a transaction of its own, so only it is undone. */
    @Override
    SqlError classify(SQLException e) {
        String state = e.getSQLState();
        if (state == null) {
            return SqlError.OTHER;
        }
        return switch (state) {
            case "55P03", // lock_not_available: lock_timeout, NOWAIT
                    "40P01", // deadlock_detected
                    "40001" -> SqlError.LOCK_UNAVAILABLE; // serialization_failure
            case "23505" -> SqlError.DUPLICATE_KEY; // unique_violation
            default -> SqlError.OTHER;
        };
    }

    @Override
    String selectState() {
        return sql("""
                SELECT version, state, CAST(EXTRACT(EPOCH FROM (expires_at - clock_timestamp())) * 1000 AS BIGINT)
                FROM {table} WHERE name = ?""");
    }

    @Override
    String insertHeld(Duration wait) {
        return waiting(wait, """
                INSERT INTO {table} (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
                SELECT nextval('{table}_token_seq'), ?, 'HELD', ?, ?, 1, clock_timestamp(),
                  (clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond'), clock_timestamp()
                FROM (SELECT set_config('lock_timeout', {lock_timeout}, true)) AS txlock_wait
                ON CONFLICT (name) DO NOTHING
                RETURNING version""");
    }

    @Override
    String takeOver(Duration wait) {
        return waiting(wait, TAKE_OVER);
    }

    private static final String TAKE_OVER = """
            UPDATE {table} SET version = nextval('{table}_token_seq'), state = 'HELD', owner_host = ?, owner_id = ?,
              hold_count = 1, acquired_at = clock_timestamp(),
              expires_at = (clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond'), updated_at = clock_timestamp()
            FROM (SELECT set_config('lock_timeout', {lock_timeout}, true)) AS txlock_wait
            WHERE name = ? AND (state = 'FREE' OR expires_at < clock_timestamp())
            RETURNING version""";

    /**
     * {@code nextval} in {@code SET} is first drawn when the scan finds the row, before the update locks it. If
     * another transaction changed the row after this statement's snapshot, the update waits for it to end and then,
     * in READ COMMITTED, re-runs the row through the plan once it holds the lock on the row's newest version
     * (EvalPlanQual): the {@code WHERE} is checked again and every {@code SET} expression evaluated again, so the
     * token it writes is drawn after that transaction ended. If nobody changed the row since the snapshot, every
     * earlier holder committed its grant before the snapshot, so drew its token before this one
     * ({@code RowLeaseFencingTest} shows the token of an update that waited greater than one drawn while it waited).
     */
    @Override
    boolean takeOverDrawsTokenUnderRowLock() {
        return true;
    }

    /**
     * Two statements sent in one round trip (pgjdbc sends them with one Sync, so outside a transaction they run in
     * one implicit transaction): {@link #insertHeld}, whose token was drawn before its insert found the name free,
     * then {@link #retoken}, holding the inserted row, which draws a token greater than that of every earlier
     * holder. The retoken finds the row by the token the insert drew ({@code currval}, this session's last draw), so
     * it changes nothing where the insert inserted nothing.
     *
     * @return the insert and its retoken; parameters: name, owner host, owner id, lease in milliseconds, name
     */
    String insertHeldAndRetoken(Duration wait) {
        return rendered("insertHeldAndRetoken", wait, w -> insertAndRetoken(insertHeld(w)));
    }

    /**
     * {@link #insertHeldUnqueued} and its retoken, as {@link #insertHeldAndRetoken}: the gated insert draws its token
     * whether or not it inserts, so the retoken's {@code currval} is never an earlier draw of the session's.
     *
     * @return the insert and its retoken; parameters: name, owner host, owner id, lease in milliseconds, name, name
     */
    String insertHeldUnqueuedAndRetoken(Duration wait) {
        return rendered("insertHeldUnqueuedAndRetoken", wait, w -> insertAndRetoken(insertHeldUnqueued(w)));
    }

    private String insertAndRetoken(String insert) {
        return insert.substring(0, insert.lastIndexOf("RETURNING")).stripTrailing() + ";\n" + sql("""
                UPDATE {table} SET version = nextval('{table}_token_seq')
                WHERE name = ? AND version = (SELECT currval('{table}_token_seq'))
                RETURNING version""");
    }

    /**
     * {@link #insertHeld} gated as {@link #selectStateUnqueued()}: it inserts nothing while another session holds the
     * name's queue key. The token and the gate come from one subquery that the planner neither flattens nor filters
     * (its output is volatile), so the token is drawn either way.
     */
    @Override
    String insertHeldUnqueued(Duration wait) {
        return rendered("insertHeldUnqueued", wait, w -> waiting(w, """
                INSERT INTO {table} (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
                SELECT txlock_token.version, ?, 'HELD', ?, ?, 1, clock_timestamp(),
                  (clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond'), clock_timestamp()
                FROM (SELECT set_config('lock_timeout', {lock_timeout}, true)) AS txlock_wait,
                  (SELECT nextval('{table}_token_seq') AS version, pg_try_advisory_xact_lock(%s) AS queue_free) AS txlock_token
                WHERE txlock_token.queue_free
                ON CONFLICT (name) DO NOTHING
                RETURNING version""".formatted(queueKey("?"))));
    }

    /** On a JDBC connection in one round trip ({@link #insertHeldAndRetoken}); native queries take two. */
    @Override
    OptionalLong insertGrant(SqlSession s, LockRequest r) throws SQLException {
        if (!s.runsStatementLists()) {
            return super.insertGrant(s, r);
        }
        if (gated(r)) {
            return s.queryLongOfLast(insertHeldUnqueuedAndRetoken(r.maxBlock()), r.name(), r.owner().host(), r.owner().id(),
                    r.lease().toMillis(), r.name(), r.name());
        }
        return s.queryLongOfLast(insertHeldAndRetoken(r.maxBlock()), r.name(), r.owner().host(), r.owner().id(),
                r.lease().toMillis(), r.name());
    }

    @Override
    String insertFree(Duration wait) {
        return waiting(wait, """
                INSERT INTO {table} (version, name, state, hold_count, expires_at, updated_at)
                SELECT nextval('{table}_token_seq'), ?, 'FREE', 0, clock_timestamp(), clock_timestamp()
                FROM (SELECT set_config('lock_timeout', {lock_timeout}, true)) AS txlock_wait
                ON CONFLICT (name) DO NOTHING
                RETURNING version""");
    }

    @Override
    String retoken() {
        return sql("""
                UPDATE {table} SET version = nextval('{table}_token_seq') WHERE name = ? AND version = ?
                RETURNING version""");
    }

    @Override
    String renew() {
        return sql("""
                UPDATE {table} SET expires_at = (clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond'),
                  updated_at = clock_timestamp()
                WHERE name = ? AND version = ? AND owner_id = ? AND state = 'HELD'""");
    }

    @Override
    String free() {
        return sql("""
                UPDATE {table} SET state = 'FREE', owner_host = NULL, owner_id = NULL, hold_count = 0,
                  expires_at = clock_timestamp(), updated_at = clock_timestamp()
                WHERE name = ? AND version = ? AND owner_id = ? AND state = 'HELD'""");
    }

    @Override
    String inspect() {
        return sql("""
                SELECT version, owner_host, owner_id, hold_count, acquired_at, expires_at FROM {table}
                WHERE name = ? AND state = 'HELD' AND (expires_at IS NULL OR expires_at >= clock_timestamp())""");
    }

    @Override
    String adminHeld() {
        return sql("""
                SELECT name, version, owner_host, owner_id, hold_count, acquired_at, expires_at FROM {table}
                WHERE name LIKE ? ESCAPE '!' AND state = 'HELD' AND (expires_at IS NULL OR expires_at >= clock_timestamp())
                ORDER BY name""");
    }

    @Override
    String inspectRow() {
        return sql("""
                SELECT name, state, version, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at FROM {table}
                WHERE name = ? AND state = 'HELD' AND (expires_at IS NULL OR expires_at >= clock_timestamp())""");
    }

    /** Rows whose lease ran out, and FREE rows a minute ({@link #FREE_RETENTION}) after their release. */
    @Override
    String reapCandidates() {
        return sql("""
                SELECT name FROM {table}
                WHERE expires_at < clock_timestamp()
                  AND (state = 'HELD' OR expires_at < (clock_timestamp() + CAST(-60000 AS BIGINT) * INTERVAL '1 millisecond'))
                ORDER BY expires_at LIMIT ? FOR UPDATE SKIP LOCKED""");
    }

    @Override
    String reapDelete() {
        return sql("""
                DELETE FROM {table} WHERE name = ? AND expires_at < clock_timestamp()
                  AND (state = 'HELD' OR expires_at < (clock_timestamp() + CAST(-60000 AS BIGINT) * INTERVAL '1 millisecond'))""");
    }

    /** A duplicate inserts nothing (0 rows), after waiting for an uncommitted claim's transaction to end. */
    @Override
    String insertClaim(Duration wait) {
        return sql("""
                INSERT INTO {table} (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
                VALUES (0, ?, 'HELD', ?, ?, 1, clock_timestamp(),
                  (clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond'), clock_timestamp())
                ON CONFLICT (name) DO NOTHING""");
    }

    @Override
    String selectTokenAndNow() {
        return sql("SELECT nextval('{table}_token_seq'), CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)");
    }

    /** Outside the caller's transaction: locks the row, waiting up to {@code ?} ({@code lock_timeout}), then draws the token. */
    String lockRowWaiting() {
        return sql("""
                SELECT nextval('{table}_token_seq') FROM (
                  SELECT 1 FROM {table} AS txlock_row, (SELECT set_config('lock_timeout', ?, true)) AS txlock_wait
                  WHERE txlock_row.name = ? FOR UPDATE OF txlock_row) AS txlock_locked""");
    }

    /** In the caller's transaction: locks the row only if no one holds it, never failing. */
    String lockRowIfFree() {
        return sql("""
                SELECT nextval('{table}_token_seq') FROM (
                  SELECT 1 FROM {table} AS txlock_row WHERE name = ? FOR UPDATE SKIP LOCKED) AS txlock_locked""");
    }

    /** In the caller's transaction: creates the row or locks it, and draws the token once it holds it. */
    String lockOrCreateRow() {
        return sql("""
                INSERT INTO {table} AS txlock_row (version, name, state, hold_count, expires_at, updated_at)
                VALUES (0, ?, 'FREE', 0, clock_timestamp(), clock_timestamp())
                ON CONFLICT (name) DO UPDATE SET hold_count = txlock_row.hold_count
                RETURNING nextval('{table}_token_seq')""");
    }

    /**
     * The schema the lock table is in, as the unqualified table name resolves on this connection: the same for every
     * node that uses that table, whatever their search paths.
     */
    @Override
    String advisoryNamespace() {
        return sql("""
                SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE c.oid = to_regclass('{table}')""");
    }

    /**
     * A session lock: {@code pg_try_advisory_lock}, and the token drawn if it took the lock. With a wait, a lock it
     * did not take is waited for in the same statement, by the {@code CASE}'s next branches, which PostgreSQL
     * evaluates in order and only as far as needed (neither condition is ever true): {@code set_config} sets
     * {@code lock_timeout} to {@code ?} for the statement's transaction, {@code pg_advisory_lock} waits (its
     * {@code void} is never null), then the token is drawn. A free lock so costs neither the setting nor the wait,
     * and the lock is taken once either way. Parameters: key; with a wait, then lock timeout and key again.
     */
    @Override
    String advisoryLock(Duration wait) {
        if (waitMillis(wait) <= 0) {
            return sql("SELECT CASE WHEN pg_try_advisory_lock(?) THEN nextval('{table}_token_seq') END");
        }
        return sql("""
                SELECT CASE WHEN pg_try_advisory_lock(?) THEN nextval('{table}_token_seq')
                  WHEN set_config('lock_timeout', ?, true) IS NULL THEN NULL
                  WHEN pg_advisory_lock(?) IS NULL THEN NULL
                  ELSE nextval('{table}_token_seq') END""");
    }

    /** @return in the caller's transaction: takes the lock, to end with the transaction, only if it is free; parameter: key */
    String advisoryXactLockIfFree() {
        return sql("SELECT CASE WHEN pg_try_advisory_xact_lock(?) THEN nextval('{table}_token_seq') END");
    }

    /** @return in the caller's transaction: waits for the lock, to end with the transaction ({@link #bounded}); parameter: key */
    String advisoryXactLock() {
        return sql("SELECT nextval('{table}_token_seq') FROM (SELECT pg_advisory_xact_lock(?)) AS txlock_locked");
    }

    @Override
    String advisoryUnlock() {
        return "SELECT CASE WHEN pg_advisory_unlock(?) THEN 1 ELSE 0 END";
    }

    @Override
    String advisoryUnlockAll() {
        return "SELECT pg_advisory_unlock_all()";
    }

    /** From {@code pg_locks}, without taking the lock: a 64-bit key shows as classid (high half) and objid (low half). */
    @Override
    String advisoryLocked() {
        return """
                SELECT 1 FROM pg_locks, (SELECT CAST(? AS BIGINT) AS key) AS txlock_key
                WHERE locktype = 'advisory' AND granted AND objsubid = 1
                  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                  AND classid = CAST((key >> 32) & 4294967295 AS oid) AND objid = CAST(key & 4294967295 AS oid)
                LIMIT 1""";
    }

    @Override
    Object advisoryKey(String keyText) {
        return AdvisoryKeys.postgresKey(keyText);
    }

    @Override
    boolean advisoryLocksEndWithTransaction() {
        return true;
    }

    /**
     * In the caller's transaction: {@code pg_try_advisory_xact_lock}, which never fails; a held lock costs a
     * savepoint and a bounded wait ({@link #bounded}) for {@code pg_advisory_xact_lock}. In a session of its own, one
     * statement ({@link #advisoryLock}) that bounds its own wait.
     */
    @Override
    OptionalLong takeAdvisoryLock(SqlSession s, Object key, Duration maxBlock, boolean callerTx) throws SQLException {
        boolean waits = waitMillis(maxBlock) > 0;
        if (callerTx) {
            OptionalLong token = s.queryNullableLong(advisoryXactLockIfFree(), key);
            if (token.isPresent() || !waits) {
                return token;
            }
            OptionalLong waited = bounded(s, maxBlock, true, () -> s.queryNullableLong(advisoryXactLock(), key));
            return waited == null ? OptionalLong.empty() : waited;
        }
        if (!waits) {
            return s.queryNullableLong(advisoryLock(maxBlock), key);
        }
        try {
            return s.queryNullableLong(advisoryLock(maxBlock), key, lockTimeout(maxBlock), key);
        } catch (SQLException e) {
            if (lockUnavailable(e)) {
                return OptionalLong.empty();
            }
            throw e;
        }
    }

    /**
     * The name's queue key: a 64-bit hash of the name seeded with the lock table's OID, the same for every session
     * of the database that uses the table; the key of {@link io.txlock.Strategy#ADVISORY} is another hash.
     */
    private static String queueKey(String name) {
        return "hashtextextended(" + name + ", CAST(CAST(CAST('{table}' AS regclass) AS oid) AS bigint))";
    }

    /**
     * The compare-and-set gated as {@link #selectStateUnqueued()}: the queue is free when the statement can take its
     * key for its own transaction.
     */
    @Override
    String takeOverUnqueued(Duration wait) {
        return rendered("takeOverUnqueued", wait, w -> waiting(w, """
                UPDATE {table} SET version = nextval('{table}_token_seq'), state = 'HELD', owner_host = ?, owner_id = ?,
                  hold_count = 1, acquired_at = clock_timestamp(),
                  expires_at = (clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond'), updated_at = clock_timestamp()
                FROM (SELECT set_config('lock_timeout', {lock_timeout}, true)) AS txlock_wait
                WHERE name = ? AND (state = 'FREE' OR expires_at < clock_timestamp()) AND pg_try_advisory_xact_lock(%s)
                RETURNING version""".formatted(queueKey("name"))));
    }

    /** A session advisory lock on the queue key, waiting up to {@code lock_timeout} (bound); returns the channel name. */
    @Override
    String queueLock() {
        return rendered("queueLock", null, () -> sql("""
                SELECT 'txlock_' || to_hex(txlock_key.k) FROM (SELECT %s AS k) AS txlock_key,
                  LATERAL (SELECT pg_advisory_lock(txlock_key.k)
                    FROM (SELECT set_config('lock_timeout', ?, true)) AS txlock_wait) AS txlock_queued"""
                .formatted(queueKey("?"))));
    }

    /** The {@code lock_timeout} text. */
    @Override
    Object queueWait(Duration wait) {
        return lockTimeout(wait);
    }

    @Override
    String queueUnlock() {
        return rendered("queueUnlock", null, () -> sql("SELECT pg_advisory_unlock(" + queueKey("?") + ")"));
    }

    /**
     * Two statements in one round trip: {@link #queueLock}, then {@link #takeOver}, which takes its snapshot once the
     * queue lock is held, so it sees the row as the last holder freed it ({@link #freeLeavingQueue()}). They run in one
     * implicit transaction, but a session advisory lock outlives its rollback: if the compare-and-set fails, the
     * session holds the queue lock.
     */
    @Override
    String queueLockAndTakeOver() {
        return rendered("queueLockAndTakeOver", null, () -> queueLock() + ";\n" + sql(TAKE_OVER).replace("{lock_timeout}", "?"));
    }

    /** Name, lock timeout; owner host, owner id, lease in milliseconds, lock timeout, name. */
    @Override
    Object[] queueLockAndTakeOverParameters(io.txlock.spi.LockRequest r, Duration wait) {
        String timeout = lockTimeout(wait);
        return new Object[] {r.name(), timeout, r.owner().host(), r.owner().id(), r.lease().toMillis(), timeout, r.name()};
    }

    /**
     * Frees the row and lets go of the queue lock in one statement. The session first takes the queue key for its
     * transaction too (it holds it already, so that never waits), so the key passes to the next waiter only when the
     * transaction commits, with the freed row: a waiter woken before the commit would read the row still held.
     * The commit does not wait for its WAL flush ({@link #RELEASE_WITHOUT_FLUSH}).
     */
    @Override
    String freeLeavingQueue() {
        return rendered("freeLeavingQueue", null, () -> sql("""
                WITH txlock_freed AS (
                %s
                RETURNING name)
                SELECT (SELECT count(*) FROM txlock_freed) FROM %s, (SELECT %s AS k) AS txlock_key,
                  LATERAL (SELECT pg_advisory_unlock(txlock_key.k)
                    FROM (SELECT pg_advisory_xact_lock(txlock_key.k)) AS txlock_until_commit) AS txlock_left"""
                .formatted(free().strip(), RELEASE_WITHOUT_FLUSH, queueKey("?"))));
    }

    /**
     * Sets {@code synchronous_commit} off for the transaction of a release of the queue's statements: its commit then
     * returns, and the next waiter goes on, without waiting for the flush of its WAL (about one {@code fdatasync}). A
     * crash can lose only a release whose WAL was not flushed yet, and then no later grant either, since a grant's
     * commit flushes the WAL up to it: the row stays held until its lease runs out, as a crashed holder's would.
     * Grants commit with the flush: a grant, or a drawn token, is never lost once granted.
     */
    private static final String RELEASE_WITHOUT_FLUSH = "(SELECT set_config('synchronous_commit', 'off', true)) AS txlock_no_flush";

    /**
     * The queue is free when this statement can take its key for its own transaction (which ends with the
     * statement), as it can where no other session holds it, or where this session holds it.
     */
    @Override
    String selectStateUnqueued() {
        return rendered("selectStateUnqueued", null, () -> sql("""
                SELECT version, CASE WHEN txlock_queue.free THEN state ELSE 'HELD' END,
                  CASE WHEN txlock_queue.free THEN CAST(EXTRACT(EPOCH FROM (expires_at - clock_timestamp())) * 1000 AS BIGINT)
                    ELSE GREATEST(0, CAST(EXTRACT(EPOCH FROM (expires_at - clock_timestamp())) * 1000 AS BIGINT)) END
                FROM {table}, (SELECT pg_try_advisory_xact_lock(%s) AS free) AS txlock_queue
                WHERE name = ?""".formatted(queueKey("?"))));
    }

    /**
     * Notifies the queue's channel, at commit, if another session holds the queue key: its head waits there. The commit
     * does not wait for its WAL flush ({@link #RELEASE_WITHOUT_FLUSH}).
     */
    @Override
    String releaseWaking(String release) {
        return rendered("releaseWaking", release, () -> sql("""
                WITH txlock_freed AS (
                %s
                RETURNING name)
                SELECT count(*) FROM %s, txlock_freed LEFT JOIN LATERAL (
                  SELECT pg_notify('txlock_' || to_hex(txlock_key.k), '') FROM (SELECT %s AS k) AS txlock_key
                  WHERE NOT pg_try_advisory_xact_lock(txlock_key.k)) AS txlock_woken ON true""".formatted(release.strip(),
                RELEASE_WITHOUT_FLUSH, queueKey("txlock_freed.name"))));
    }

    /** Sets {@code lock_timeout} to {@code ?} for the rest of the transaction, returning the previous setting. */
    String setLockTimeout() {
        return "SELECT current_setting('lock_timeout'), set_config('lock_timeout', ?, true)";
    }

    /**
     * Savepoints are SQL statements, not {@code Connection.setSavepoint()}: a Jakarta EE server refuses
     * {@code Connection.rollback(Savepoint)} on a connection enlisted in its transaction (WildFly: IJ031021).
     */
    @Override
    String savepoint() {
        return "SAVEPOINT txlock_attempt";
    }

    @Override
    String releaseSavepoint() {
        return "RELEASE SAVEPOINT txlock_attempt";
    }

    @Override
    String rollbackToSavepoint() {
        return "ROLLBACK TO SAVEPOINT txlock_attempt";
    }

    /** {@code lock_timeout}, set for the rest of the transaction ({@code set_config(…, true)}): a rollback undoes it. */
    @Override
    LockTableSql.SessionWait sessionWait(Duration maxBlock) {
        return new LockTableSql.SessionWait("SELECT current_setting('lock_timeout')",
                "SELECT set_config('lock_timeout', '{}', true)", lockTimeout(maxBlock), true);
    }

    private String waiting(Duration wait, String text) {
        return rendered(text, wait, w -> sql(text).replace("{lock_timeout}", "'" + lockTimeout(w) + "'"));
    }

    private static String lockTimeout(Duration wait) {
        return Math.max(1, waitMillis(wait)) + "ms";
    }

    /**
     * Outside the caller's transaction the statement bounds its own wait ({@code lock_timeout} from a bound
     * parameter, so the server reuses its prepared plan) and a timeout simply ends the attempt. Inside it, where an
     * error would abort the caller's transaction, a row that no one holds is taken with {@code SKIP LOCKED}, which
     * never fails; a held or missing row costs a savepoint and a bounded wait ({@link #bounded}) for one upsert that
     * creates the row or locks it, and draws the token in {@code RETURNING}, once it holds the row (a first use of
     * a name, an idempotency key say, thus takes one statement in the savepoint, not a lock, an insert and a lock).
     * Elsewhere the token is drawn above the {@code FOR UPDATE} subquery, once its row is locked.
     */
    @Override
    OptionalLong lockRow(SqlSession s, String name, Duration maxBlock, boolean callerTx) throws SQLException {
        if (callerTx) {
            OptionalLong free = s.queryLong(lockRowIfFree(), name);
            return free.isPresent() ? free : bounded(s, maxBlock, true, () -> s.queryLong(lockOrCreateRow(), name));
        }
        try {
            return s.queryLong(lockRowWaiting(), lockTimeout(maxBlock), name);
        } catch (SQLException e) {
            if (lockUnavailable(e)) {
                return null;
            }
            throw e;
        }
    }

    /**
     * Outside the caller's transaction the statements bound their own waits; inside it they run in a savepoint,
     * with {@code lock_timeout} set for them and set back after them, and a failure rolls back to the savepoint.
     */
    @Override
    <T> T bounded(SqlSession s, Duration maxBlock, boolean callerTx, SqlCall<T> call) throws SQLException {
        if (!callerTx) {
            try {
                return call.run();
            } catch (SQLException e) {
                if (lockUnavailable(e)) {
                    return null;
                }
                throw e;
            }
        }
        try {
            return inSavepoint(s, () -> {
                String previous = setLockTimeout(s, lockTimeout(maxBlock));
                T result = call.run();
                setLockTimeout(s, previous);
                return result;
            });
        } catch (SQLException e) {
            if (lockUnavailable(e)) {
                return null;
            }
            throw e;
        }
    }

    /** Sets lock_timeout for the rest of the transaction; returns the previous setting. */
    private String setLockTimeout(SqlSession s, String timeout) throws SQLException {
        return String.valueOf(s.queryRow(setLockTimeout(), timeout)[0]);
    }
}
