package io.txlock.jdbc;

import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The lock table's SQL of one dialect, exactly as the JDBC provider runs it, for txlock's JPA provider
 * ({@code io.txlock.jpa}), which runs it as native queries through an {@code EntityManager}: so both providers
 * take fencing tokens from the same sequence, read the same database clock, bound lock waits the same way and
 * write the same rows. Every statement takes JDBC-style {@code ?} parameters.
 *
 * <p><b>Internal to txlock.</b> Not an API: it may change in any release.
 */
public final class LockTableSql {

    private final JdbcDialect dialect;
    private final Statements st;

    LockTableSql(JdbcDialect dialect, Statements st) {
        this.dialect = dialect;
        this.st = st;
    }

    Statements statements() {
        return st;
    }

    /**
     * @param dialect the database
     * @param table the lock table, a plain identifier
     * @return the table's SQL
     * @throws IllegalArgumentException if {@code table} is not a plain identifier
     */
    public static LockTableSql of(JdbcDialect dialect, String table) {
        if (dialect == null) {
            throw new IllegalArgumentException("dialect must not be null");
        }
        return new LockTableSql(dialect, Statements.of(dialect, JdbcLockProvider.validTable(table)));
    }

    /** @return the database */
    public JdbcDialect dialect() {
        return dialect;
    }

    /** @return the lock table */
    public String table() {
        return st.table;
    }

    /** @return a statement to run just before {@link #selectTokenAndNow()}, in the same transaction (MySQL: the token row) */
    public Optional<String> tokenInsert() {
        return Optional.ofNullable(st.tokenInsert());
    }

    /** @return a query for one row: the next fencing token, and the database clock in microseconds since the epoch */
    public String selectTokenAndNow() {
        return st.selectTokenAndNow();
    }

    /** @return a query for the state of a name's row: version, state, milliseconds until {@code expires_at}; parameter: name */
    public String selectState() {
        return st.selectState();
    }

    /** @return a query for the whole row of a name if it is held and its lease has not run out; parameter: name */
    public String selectHeldRow() {
        return st.inspectRow();
    }

    /** @return an update that sets a held row free; parameters: name, token, owner id */
    public String free() {
        return st.free();
    }

    /** @return a query for up to {@code ?} names whose lease ran out, locking them, skipping locked rows */
    public String reapCandidates() {
        return st.reapCandidates();
    }

    /** @return a delete of one name whose lease ran out; parameter: name */
    public String reapDelete() {
        return st.reapDelete();
    }

    /** @return a query for the newest used token row (MySQL/MariaDB's token table), or empty where tokens come from a sequence */
    public Optional<String> newestToken() {
        return Optional.ofNullable(st.newestToken());
    }

    /**
     * @param batch the most rows to delete
     * @return a delete of used token rows below {@code ?}, the newest; only where {@link #newestToken()} is present
     */
    public String purgeTokensBelow(int batch) {
        return st.purgeTokensBelow(batch);
    }

    /**
     * @param maxBlock the longest wait
     * @return how to bound every lock wait of a session (connection or transaction) to {@code maxBlock}
     */
    public SessionWait sessionWait(Duration maxBlock) {
        return st.sessionWait(maxBlock);
    }

    /**
     * @param maxBlock the longest wait, bounded by {@link #sessionWait}
     * @return the standard JPA lock-timeout hint for a pessimistic lock that waits up to {@code maxBlock}, in
     *     milliseconds: any hint of 0 or more makes the JPA provider report a lock conflict as a
     *     {@code LockTimeoutException}, which leaves the transaction usable
     */
    public int jpaLockTimeoutHint(Duration maxBlock) {
        return st.jpaLockTimeoutHint(maxBlock);
    }

    /**
     * @return the statements that run an attempt in the caller's transaction inside a savepoint, where a failed
     *     statement would otherwise abort that transaction (PostgreSQL); empty where none is needed
     */
    public Optional<Savepoint> savepoint() {
        return st.savepoint() == null ? Optional.empty()
                : Optional.of(new Savepoint(st.savepoint(), st.releaseSavepoint(), st.rollbackToSavepoint()));
    }

    /**
     * The statements of a savepoint.
     *
     * @param open opens it
     * @param release ends it, keeping what was done in it
     * @param rollback undoes everything since it was opened, row locks and settings included (it stays open)
     */
    public record Savepoint(String open, String release, String rollback) {
    }

    /** A query for the database's version where JDBC metadata is not at hand: PostgreSQL, MySQL and MariaDB answer it. */
    public static final String VERSION_QUERY = "SELECT version()";

    /** A query only H2 answers, for a database that does not answer {@link #VERSION_QUERY}. */
    public static final String H2_VERSION_QUERY = "SELECT H2VERSION()";

    /**
     * @param version the answer to {@link #VERSION_QUERY}
     * @return the database it comes from
     */
    public static JdbcDialect dialectOfVersion(String version) {
        String v = version.toLowerCase(java.util.Locale.ROOT);
        return v.contains("postgresql") ? JdbcDialect.POSTGRESQL : v.contains("mariadb") ? JdbcDialect.MARIADB : JdbcDialect.MYSQL;
    }

    /** @return the longest single lock wait; a longer wait is a series of waits */
    public static Duration maxSingleWait() {
        return Statements.MAX_SINGLE_WAIT;
    }

    /**
     * @param failure an exception, whose causes are searched for an {@link SQLException}
     * @return whether it means "another transaction holds the row": lock wait timeout, NOWAIT, deadlock
     */
    public boolean lockUnavailable(Throwable failure) {
        SQLException e = sqlException(failure);
        return e != null && st.lockUnavailable(e);
    }

    /**
     * @param failure an exception, whose causes are searched for an {@link SQLException}
     * @return whether it is a unique-key violation
     */
    public boolean duplicateKey(Throwable failure) {
        SQLException e = sqlException(failure);
        return e != null && st.duplicateKey(e);
    }

    /**
     * @param failure an exception, whose causes are searched for an {@link SQLException}
     * @return whether the database rolled back the whole transaction (a deadlock victim)
     */
    public boolean abortsTransaction(Throwable failure) {
        SQLException e = sqlException(failure);
        return e != null && st.abortsTransaction(e);
    }

    private static SQLException sqlException(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException e) {
                return e;
            }
        }
        return null;
    }

    /**
     * How a session bounds every lock wait: read the current setting with {@link #query()}, set {@link #value()}
     * with {@link #update(String)}, set the previous value back when done.
     *
     * @param query a query for the current setting, one row and column
     * @param template the statement that sets it, with {@code {}} where the value goes
     * @param value the setting for the requested wait
     * @param endsWithTransaction the setting lasts only until the transaction (or savepoint) ends, so a rollback
     *     undoes it (PostgreSQL's {@code set_config(…, true)})
     */
    public record SessionWait(String query, String template, String value, boolean endsWithTransaction) {

        private static final Pattern SETTING = Pattern.compile("[0-9A-Za-z.]{1,32}");

        /**
         * @param setting a value read with {@link #query()}, or {@link #value()}
         * @return the statement that sets it
         * @throws IllegalStateException if the value is not a plain number or duration
         */
        public String update(String setting) {
            if (setting == null || !SETTING.matcher(setting).matches()) {
                throw new IllegalStateException("unexpected lock wait setting '" + setting + "'");
            }
            return template.replace("{}", setting);
        }

        /** @return whether {@link #update(String)} is a query (run it with {@code executeQuery}) */
        public boolean updateIsQuery() {
            return template.startsWith("SELECT");
        }

        String readSetting(SqlSession s) throws SQLException {
            return String.valueOf(s.control(query)[0]);
        }

        void apply(SqlSession s, String setting) throws SQLException {
            s.control(update(setting));
        }
    }
}
