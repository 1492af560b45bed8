package io.txlock.jdbc;

import java.sql.SQLException;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * MariaDB 10.6 or later (InnoDB; how it runs is {@link InnoDbStatements}'). Tokens come from the sequence
 * {@code <table>_token_seq}: a LEASE row lock draws its token in the select list of its locking read, which MariaDB
 * computes after it locked the row, and drawing one writes nothing (a token row insert halves what the server can
 * do, measured on MariaDB 10.11). A row-lease statement draws its token in SQL and returns it through
 * {@code LAST_INSERT_ID(…)} ({@link #tokened}), so an uncontended compare-and-set grant ({@link #takeOver}) is one
 * round trip; so is a grant by insert, the insert and its {@link #retoken} in one compound statement
 * ({@link #insertHeldAndRetoken}). Lock waits are bounded per statement
 * and to the millisecond by {@code SET STATEMENT max_statement_time = … FOR …} ({@code innodb_lock_wait_timeout = 0}
 * for "do not wait"), so no session setting is ever changed ({@link #waiting}).
 */
final class MariaDbStatements extends InnoDbStatements {

    MariaDbStatements(String table) {
        super(table);
    }

    @Override
    String insertHeld(Duration wait) {
        return waiting(wait, """
                INSERT IGNORE INTO {table} (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
                SELECT LAST_INSERT_ID(NEXTVAL({table}_token_seq)), ?, 'HELD', ?, ?, 1, UTC_TIMESTAMP(6),
                  TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)), UTC_TIMESTAMP(6)""");
    }

    @Override
    String takeOver(Duration wait) {
        return waiting(wait, TAKE_OVER);
    }

    private static final String TAKE_OVER = """
            UPDATE {table} SET version = LAST_INSERT_ID(NEXTVAL({table}_token_seq)), state = 'HELD', owner_host = ?,
              owner_id = ?, hold_count = 1, acquired_at = UTC_TIMESTAMP(6),
              expires_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)), updated_at = UTC_TIMESTAMP(6)
            WHERE name = ? AND (state = 'FREE' OR expires_at < UTC_TIMESTAMP(6))""";

    /**
     * InnoDB's {@code UPDATE} reads the row with a lock (waiting for a transaction that changed it to end, and reading
     * its newest version, whatever the isolation level), checks the {@code WHERE} on it, and only then evaluates the
     * {@code SET} expressions: {@code NEXTVAL} is drawn under the row lock.
     */
    @Override
    boolean takeOverDrawsTokenUnderRowLock() {
        return true;
    }

    @Override
    String insertFree(Duration wait) {
        return waiting(wait, """
                INSERT IGNORE INTO {table} (version, name, state, hold_count, expires_at, updated_at)
                SELECT LAST_INSERT_ID(NEXTVAL({table}_token_seq)), ?, 'FREE', 0, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6)""");
    }

    /**
     * {@link #insertHeld} and its {@link #retoken} in one compound statement, so a grant by insert is one round trip:
     * the insert's token, drawn before it found the name free, is replaced by one drawn while the statement holds the
     * inserted row. The server refuses a compound statement as a server-side prepared statement; MariaDB Connector/J and
     * MySQL Connector/J send it as text all the same when set to prepare on the server ({@code useServerPrepStmts},
     * {@code RowLeaseRoundTripsTest}). JPA's native queries run the two statements one by one.
     *
     * @return a query for the grant's token, no row if the name has a row; parameters: name, owner host, owner id,
     *     lease in milliseconds, name
     */
    String insertHeldAndRetoken(Duration wait) {
        return rendered("insertHeldAndRetoken", wait, w -> sql("""
                BEGIN NOT ATOMIC
                  DECLARE drawn BIGINT DEFAULT NEXTVAL({table}_token_seq);
                  DECLARE granted BIGINT DEFAULT NULL;
                %s  SELECT granted FROM DUAL WHERE granted IS NOT NULL;
                END""".formatted(insertAndRetoken(w).indent(2))));
    }

    /**
     * {@link #insertHeldAndRetoken} gated as {@link #insertHeldUnqueued}: it inserts nothing while another session
     * holds the name's queue lock.
     *
     * @return a query for the grant's token, no row if the name has a row or queued waiters; parameters: name, name,
     *     owner host, owner id, lease in milliseconds, name
     */
    String insertHeldUnqueuedAndRetoken(Duration wait) {
        return rendered("insertHeldUnqueuedAndRetoken", wait, w -> sql("""
                BEGIN NOT ATOMIC
                  DECLARE queue VARCHAR(64) DEFAULT %s;
                  DECLARE drawn BIGINT DEFAULT NEXTVAL({table}_token_seq);
                  DECLARE granted BIGINT DEFAULT NULL;
                  IF %s THEN
                %s  END IF;
                  SELECT granted FROM DUAL WHERE granted IS NOT NULL;
                END""".formatted(queueKey("?"), unqueued("queue"), insertAndRetoken(w).indent(4))));
    }

    /** The insert of a compound statement, and its retoken if it inserted: sets {@code granted} to the new token. */
    private static String insertAndRetoken(Duration wait) {
        return """
                SET STATEMENT %s FOR
                INSERT IGNORE INTO {table} (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
                VALUES (drawn, ?, 'HELD', ?, ?, 1, UTC_TIMESTAMP(6), TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)),
                  UTC_TIMESTAMP(6));
                IF ROW_COUNT() = 1 THEN
                  UPDATE {table} SET version = LAST_INSERT_ID(NEXTVAL({table}_token_seq)) WHERE name = ? AND version = drawn;
                  IF ROW_COUNT() = 1 THEN
                    SET granted = LAST_INSERT_ID();
                  END IF;
                END IF;""".formatted(bound(wait));
    }

    /** {@link #insertHeld} gated as {@link #selectStateUnqueued()}: the queue's user lock is free, or this session's. */
    @Override
    String insertHeldUnqueued(Duration wait) {
        return rendered("insertHeldUnqueued", wait, w -> waiting(w, """
                INSERT IGNORE INTO {table} (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
                SELECT LAST_INSERT_ID(NEXTVAL({table}_token_seq)), ?, 'HELD', ?, ?, 1, UTC_TIMESTAMP(6),
                  TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)), UTC_TIMESTAMP(6)
                FROM (SELECT %s AS k) AS txlock_key
                WHERE %s""".formatted(queueKey("?"), unqueued("txlock_key.k"))));
    }

    @Override
    OptionalLong insertGrant(SqlSession s, io.txlock.spi.LockRequest r) throws SQLException {
        if (!s.runsStatementLists()) {
            return super.insertGrant(s, r);
        }
        if (gated(r)) {
            return s.queryLongOfLast(insertHeldUnqueuedAndRetoken(r.maxBlock()), r.name(), r.name(), r.owner().host(),
                    r.owner().id(), r.lease().toMillis(), r.name());
        }
        return s.queryLongOfLast(insertHeldAndRetoken(r.maxBlock()), r.name(), r.owner().host(), r.owner().id(),
                r.lease().toMillis(), r.name());
    }

    @Override
    String retoken() {
        return sql("UPDATE {table} SET version = LAST_INSERT_ID(NEXTVAL({table}_token_seq)) WHERE name = ? AND version = ?");
    }

    /**
     * A tokened statement draws its token in SQL and hands it to {@code LAST_INSERT_ID(…)}, which MariaDB reports in
     * its answer to the statement: one round trip, as MariaDB has no {@code UPDATE … RETURNING}.
     */
    @Override
    OptionalLong tokened(SqlSession s, String sql, Object... params) throws SQLException {
        return s.lastInsertId(sql, "SELECT LAST_INSERT_ID()", params);
    }

    /** @return locks the name's row, if there is one, and draws the token once it holds it; parameter: name */
    String lockRowDrawingToken(Duration wait) {
        return waiting(wait, "SELECT NEXTVAL({table}_token_seq) FROM {table} WHERE name = ? FOR UPDATE");
    }

    /**
     * {@code GET_LOCK}, waiting to the millisecond, and the token drawn only once it returned 1 ({@code IF} evaluates
     * one branch).
     */
    @Override
    String advisoryLock(Duration wait) {
        return sql("SELECT IF(GET_LOCK(?, ? / 1000) = 1, NEXTVAL({table}_token_seq), NULL)");
    }

    /** The wait in milliseconds, bound: one statement text for every wait. */
    @Override
    Object advisoryWait(Duration maxBlock) {
        return Math.max(0, waitMillis(maxBlock));
    }

    /**
     * The compare-and-set gated as {@link #selectStateUnqueued()}: the queue's user lock is free, or this session's. An
     * {@code UPDATE} locks the row it reads, matching or not, until its statement ends, so an attempt outside the
     * queue that comes just as a release woke the next waiter holds up that waiter's compare-and-set for as long as
     * this statement runs. A compound statement that looks at the user lock first would spare the waiter that, but
     * costs the uncontended acquire about a tenth more server CPU (MariaDB 10.11: 428 against 471 µs per single-threaded
     * cycle), and the handoff from holder to waiter measured no slower for it.
     */
    @Override
    String takeOverUnqueued(Duration wait) {
        return rendered("takeOverUnqueued", wait, w -> waiting(w, """
                UPDATE {table} SET version = LAST_INSERT_ID(NEXTVAL({table}_token_seq)), state = 'HELD', owner_host = ?,
                  owner_id = ?, hold_count = 1, acquired_at = UTC_TIMESTAMP(6),
                  expires_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)), updated_at = UTC_TIMESTAMP(6)
                WHERE name = ? AND (state = 'FREE' OR expires_at < UTC_TIMESTAMP(6))
                  AND (%s)""".formatted(unqueued(queueKey("name")))));
    }

    /** To the millisecond. */
    @Override
    String getLock(String key) {
        return "GET_LOCK(" + key + ", ? / 1000)";
    }

    /**
     * One compound statement: {@link #queueLock}, then, once it holds the queue lock, a locking read of the row that
     * finds it passed to this session by the release that let go of the queue lock ({@link #freeLeavingQueue}): held
     * by {@link #passedTo} this connection, with a token drawn after this statement drew one of its own before it
     * waited (so never a pass to an earlier session of the same id, before a restart), and a lease that has not run
     * out. Such a row is this session's grant as it is: nothing is written. Otherwise {@link #takeOver}, which reads
     * the row's newest committed version under its row lock. If neither took the row, the session holds the queue
     * lock. Its one result comes once the row was read or taken ({@code ''}, the token, the owner written to a passed
     * row or NULL, and a passed row's lease in milliseconds counted from this statement's start; NULLs if the wait ran
     * out): a result sent between the steps would wake the waiter's thread while they still run.
     * Its waits are bound, so one text serves every wait: the locking read's and the compare-and-set's as a
     * {@code max_statement_time} of at least a millisecond (a wait under one, which ends the attempt anyway, may cut
     * them short: a lock timeout).
     */
    @Override
    String queueLockAndTakeOver() {
        return rendered("queueLockAndTakeOver", null, () -> sql("""
                BEGIN NOT ATOMIC
                  DECLARE granted BIGINT DEFAULT NULL;
                  DECLARE passed BIGINT DEFAULT NULL;
                  DECLARE lease BIGINT DEFAULT NULL;
                  DECLARE since DATETIME(6) DEFAULT UTC_TIMESTAMP(6);
                  SET @txlock_queued = NEXTVAL({table}_token_seq);
                  IF %s = 1 THEN
                    SET STATEMENT max_statement_time = ? FOR
                    SELECT MAX(version), MAX(TIMESTAMPDIFF(MICROSECOND, since, expires_at) DIV 1000) INTO passed, lease
                    FROM {table} WHERE name = ? AND state = 'HELD' AND owner_id = %s AND version > @txlock_queued
                      AND expires_at > UTC_TIMESTAMP(6)
                    FOR UPDATE;
                    IF passed IS NOT NULL THEN
                      SELECT '', passed, %s, lease FROM DUAL;
                    ELSE
                %s      SELECT '', granted, NULL, NULL FROM DUAL;
                    END IF;
                  ELSE
                    SELECT NULL, NULL, NULL, NULL FROM DUAL;
                  END IF;
                END""".formatted(getLock(queueKey("?")), passedTo("CONNECTION_ID()"), passedTo("CONNECTION_ID()"),
                takeOverStep().indent(6))));
    }

    /**
     * Name, wait in milliseconds; the locking read's wait in seconds, name; the compare-and-set's wait in seconds,
     * owner host, owner id, lease in milliseconds, name.
     */
    @Override
    Object[] queueLockAndTakeOverParameters(io.txlock.spi.LockRequest r, Duration wait) {
        long millis = Math.max(0, waitMillis(wait));
        java.math.BigDecimal seconds = java.math.BigDecimal.valueOf(Math.max(1, millis), 3);
        return new Object[] {r.name(), millis, seconds, r.name(), seconds, r.owner().host(), r.owner().id(),
                r.lease().toMillis(), r.name()};
    }

    /**
     * @param connection an SQL expression for a connection id
     * @return the owner written to a row passed to the session that holds the queue lock: never a {@link
     *     io.txlock.spi.LockOwner#id()}, which always holds a {@code /}
     */
    static String passedTo(String connection) {
        return "CONCAT('queue:', " + connection + ")";
    }

    /** {@link #takeOver} as a step of a compound statement: sets {@code granted} to the new token if it took the row. */
    private String takeOverStep() {
        return "SET STATEMENT max_statement_time = ? FOR " + sql(TAKE_OVER) + """
                ;
                IF ROW_COUNT() = 1 THEN
                  SET granted = LAST_INSERT_ID();
                END IF;""";
    }

    /**
     * The release of a grant that holds the queue lock, in one compound statement and one transaction, with one
     * durable commit: it locks the grant's row, lets go of the queue lock, which the database hands to its next
     * waiter at once, and then, if someone holds the queue lock, passes the row to that session ({@link #passedTo}
     * its connection id, a token drawn now, the lease given, counted from now: after that waiter's statement began),
     * else frees it. The waiter's locking read ({@link #queueLockAndTakeOver}) waits for this commit. A failure rolls
     * the transaction back, so none stays open on the connection.
     */
    @Override
    String freeLeavingQueue() {
        return rendered("freeLeavingQueue", null, () -> sql("""
                BEGIN NOT ATOMIC
                  DECLARE freed INT DEFAULT 0;
                  DECLARE next BIGINT DEFAULT NULL;
                  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
                  START TRANSACTION;
                  SELECT COUNT(*) INTO freed FROM {table}
                  WHERE name = ? AND version = ? AND owner_id = ? AND state = 'HELD' FOR UPDATE;
                  DO RELEASE_LOCK(%s);
                  IF freed = 1 THEN
                    SET next = IS_USED_LOCK(%s);
                    IF next IS NULL THEN
                      UPDATE {table} SET state = 'FREE', owner_host = NULL, owner_id = NULL, hold_count = 0,
                        expires_at = UTC_TIMESTAMP(6), updated_at = UTC_TIMESTAMP(6)
                      WHERE name = ?;
                    ELSE
                      UPDATE {table} SET version = NEXTVAL({table}_token_seq), owner_host = NULL, owner_id = %s,
                        hold_count = 1, acquired_at = UTC_TIMESTAMP(6),
                        expires_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)), updated_at = UTC_TIMESTAMP(6)
                      WHERE name = ?;
                    END IF;
                  END IF;
                  COMMIT;
                  SELECT freed FROM DUAL;
                END""".formatted(queueKey("?"), queueKey("?"), passedTo("next"))));
    }

    /** Parameters: name, token, owner id, name, name, name, lease in milliseconds, name. */
    @Override
    Object[] freeLeavingQueueParameters(JdbcGrant g, Duration lease) {
        return new Object[] {g.name(), g.fencingToken(), g.ownerId(), g.name(), g.name(), g.name(), lease.toMillis(), g.name()};
    }

    /**
     * Frees a row passed to this session that it never took ({@link #queueLockAndTakeOver} failed after the queue lock),
     * then lets go of the queue lock.
     */
    @Override
    String leaveQueue() {
        return rendered("leaveQueue", null, () -> sql("""
                BEGIN NOT ATOMIC
                  UPDATE {table} SET state = 'FREE', owner_host = NULL, owner_id = NULL, hold_count = 0,
                    expires_at = UTC_TIMESTAMP(6), updated_at = UTC_TIMESTAMP(6)
                  WHERE name = ? AND state = 'HELD' AND owner_id = %s AND version > @txlock_queued;
                  SELECT RELEASE_LOCK(%s);
                END""".formatted(passedTo("CONNECTION_ID()"), queueKey("?"))));
    }

    @Override
    Object[] leaveQueueParameters(String name) {
        return new Object[] {name, name};
    }

    /** @return a query for a new token */
    String nextToken() {
        return sql("SELECT NEXTVAL({table}_token_seq)");
    }

    @Override
    String selectTokenAndNow() {
        return sql("SELECT NEXTVAL({table}_token_seq), TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))");
    }

    /**
     * For a whole session: {@code max_statement_time}, to the millisecond; "do not wait" is
     * {@code innodb_lock_wait_timeout = 0}, as {@code max_statement_time = 0} would mean "no limit".
     */
    @Override
    LockTableSql.SessionWait sessionWait(Duration maxBlock) {
        long millis = waitMillis(maxBlock);
        if (millis <= 0) {
            return new LockTableSql.SessionWait("SELECT @@SESSION.innodb_lock_wait_timeout",
                    "SET SESSION innodb_lock_wait_timeout = {}", "0", false);
        }
        return new LockTableSql.SessionWait("SELECT @@SESSION.max_statement_time", "SET SESSION max_statement_time = {}",
                seconds(millis), false);
    }

    /** Hibernate renders a positive hint as {@code WAIT} in whole seconds: rounded up, {@link #sessionWait} cuts it. */
    @Override
    int jpaLockTimeoutHint(Duration maxBlock) {
        long millis = waitMillis(maxBlock);
        return (int) (millis > 0 ? (millis + 999) / 1000 * 1000 : millis);
    }

    /** @return {@code text}, its lock waits bounded by {@code wait}: {@code SET STATEMENT … FOR text} */
    @Override
    String waiting(Duration wait, String text) {
        return rendered(text, wait, w -> "SET STATEMENT " + bound(w) + " FOR " + sql(text));
    }

    private static String bound(Duration wait) {
        long millis = waitMillis(wait);
        return millis <= 0 ? "innodb_lock_wait_timeout = 0" : "max_statement_time = " + seconds(millis);
    }

    private static String seconds(long millis) {
        return (millis / 1000) + "." + Long.toString(1000 + millis % 1000).substring(1);
    }

    /** Outside the caller's transaction: one locking read that draws the token (in the caller's, the upsert). */
    @Override
    OptionalLong lockRow(SqlSession s, String name, Duration maxBlock, boolean callerTx) throws SQLException {
        if (callerTx) {
            return lockRowInCallerTransaction(s, name, maxBlock);
        }
        return bounded(s, maxBlock, false, () -> s.queryLong(lockRowDrawingToken(maxBlock), name));
    }

    @Override
    long newToken(SqlSession s) throws SQLException {
        return s.queryLong(nextToken()).getAsLong();
    }

    @Override
    <T> T bounded(SqlSession s, Duration maxBlock, boolean callerTx, SqlCall<T> call) throws SQLException {
        try {
            return call.run();
        } catch (SQLException e) {
            // 1969, max_statement_time, is this dialect's wait bound only where waiting set one: a zero wait sets none
            if (lockUnavailable(e) && !(callerTx && abortsTransaction(e)) && (e.getErrorCode() != 1969 || waitMillis(maxBlock) > 0)) {
                return null;
            }
            throw e;
        }
    }
}
