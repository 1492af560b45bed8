package io.txlock.jdbc;

import io.txlock.LockInterruptedException;
import io.txlock.LockTimeoutException;
import io.txlock.core.CoreLockManager;
import io.txlock.core.LockNames;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * Idempotency claims: the first transaction that claims a key (an order number, a payment id, a message id)
 * wins; every later claim of that key is refused. A claim is a row of the lock table written inside the
 * caller's own transaction, so it commits or rolls back with the business rows:
 *
 * <pre>{@code
 * JdbcClaims claims = JdbcClaims.builder(dataSource).retention(Duration.ofDays(7)).build();
 *
 * @Transactional                                  // or an EJB method, or JdbcTransactions.inTransaction
 * public boolean submit(Order order) {
 *     if (!claims.claim("order:" + order.number())) {
 *         return false;                           // a duplicate submission: stored once already
 *     }
 *     orders.insert(order);                       // same transaction as the claim
 *     return true;
 * }
 * }</pre>
 *
 * <ul>
 *   <li>A committed claim refuses every duplicate for at least its {@link Builder#retention retention}.</li>
 *   <li>A duplicate of a claim whose transaction is still running waits for it (up to the claim's wait): it is
 *       refused if that transaction commits, and wins if it rolls back, so a failed submission frees its key.</li>
 *   <li>Claiming needs no read of the business table and no {@code SELECT … FOR UPDATE}: no gap locks on rows that
 *       do not exist, so concurrent duplicates neither block unrelated keys nor deadlock, on MySQL and MariaDB under
 *       REPEATABLE READ too (the claim is one {@code INSERT … ON DUPLICATE KEY UPDATE}; on PostgreSQL
 *       {@code INSERT … ON CONFLICT DO NOTHING}; on H2 a plain insert). On PostgreSQL, claim under READ COMMITTED
 *       (the default): a REPEATABLE READ transaction that meets a claim committed after it started gets a
 *       serialization failure instead of {@code false}.</li>
 *   <li>After its retention a claim is deleted by the reaper of any {@link JdbcLockProvider} on the same table, or
 *       by {@link #reapExpired()}.</li>
 * </ul>
 *
 * <p>Claims live in the lock table ({@code method_lock} by default, or any table made from the same DDL): keep
 * claim keys apart from lock names, e.g. {@code "order-submitted:42"} for claims, {@code "order:42"} for locks,
 * or give claims a table of their own. A claim row shows in {@code LockManager.inspect} as held by owner
 * {@code "claim"} with token 0 until its retention ends.
 *
 * <p>The datasource must hand out the caller's transactional connection: the container's JTA datasource inside a
 * JTA transaction, or {@link JdbcTransactions#dataSource()} inside {@link JdbcTransactions#inTransaction}. Thread
 * safe; one instance per table is enough.
 */
public final class JdbcClaims {

    /** The owner id written to claim rows. */
    public static final String OWNER = "claim";

    private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final JdbcAccess db;
    private final Duration retention;
    private final Duration wait;
    private final String host;

    private JdbcClaims(Builder b) {
        this.db = new JdbcAccess(b.dataSource, b.dataSource, b.lockDialect(), b.lockTable());
        this.retention = b.retention;
        this.wait = b.wait;
        this.host = b.host != null ? b.host : CoreLockManager.localHostName();
    }

    /**
     * @param dataSource the application's transactional datasource (the container's JTA datasource)
     * @return a builder
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * @param transactions local JDBC transactions; claims join {@link JdbcTransactions#inTransaction}
     * @return a builder over {@link JdbcTransactions#dataSource()}
     */
    public static Builder builder(JdbcTransactions transactions) {
        return new Builder(transactions.dataSource());
    }

    /**
     * Claims {@code key} in the caller's transaction, waiting up to the default wait for a concurrent claim of the
     * same key to commit or roll back.
     *
     * @param key what to claim: 1 to 255 characters, the rules of lock names
     * @return true if this transaction claimed the key; false if a committed claim (or this transaction, before)
     *     has it
     * @throws LockTimeoutException if another transaction claimed the key and neither committed nor rolled back
     *     within the wait: the duplicate's outcome is still open
     * @throws IllegalStateException if the connection is not in a transaction (auto-commit)
     * @throws io.txlock.LockBackendException if the database failed
     */
    public boolean claim(String key) {
        return claim(key, wait);
    }

    /**
     * @param key what to claim
     * @param wait how long to wait for a concurrent, uncommitted claim of the same key; zero does not wait, and
     *     no claim waits longer than 10 minutes
     * @return true if this transaction claimed the key, false if it was claimed before
     * @throws LockTimeoutException if a concurrent claim's transaction did not end within {@code wait}
     * @throws IllegalStateException if the connection is not in a transaction
     * @throws io.txlock.LockBackendException if the database failed
     * @see #claim(String)
     */
    public boolean claim(String key, Duration wait) {
        LockNames.validate(key);
        if (wait == null || wait.isNegative()) {
            throw new IllegalArgumentException("wait must be zero or positive (zero means do not wait), was " + wait);
        }
        Duration bound = wait.compareTo(Statements.MAX_SINGLE_WAIT) > 0 ? Statements.MAX_SINGLE_WAIT : wait;
        Boolean claimed = db.inCallerTransaction(c -> {
            if (c.getAutoCommit()) {
                throw new IllegalStateException("claim('" + key + "') needs the caller's transaction, but the connection of "
                        + "the datasource is in auto-commit mode: the claim would commit at once and outlive a failed order."
                        + " Claim inside a JTA transaction (an EJB method, @Transactional) with the container's JTA datasource,"
                        + " or inside JdbcTransactions.inTransaction with JdbcClaims.builder(jdbcTransactions)");
            }
            Statements st = db.statements();
            if (!st.claimPolls()) {
                return attempt(c, st, key, bound);
            }
            long start = System.nanoTime();
            long pause = FIRST_PAUSE_NANOS;
            while (true) {
                Boolean outcome = attempt(c, st, key, Duration.ZERO);
                long left = bound.toNanos() - (System.nanoTime() - start);
                if (outcome != null || left <= 0) {
                    return outcome;
                }
                pause(key, Math.min(left, pause / 2 + ThreadLocalRandom.current().nextLong(pause / 2 + 1)));
                pause = Math.min(MAX_PAUSE_NANOS, pause * 2);
            }
        }, "claim '" + key + "'");
        if (claimed == null) {
            throw new LockTimeoutException(key, wait);
        }
        return claimed;
    }

    /** @return true if claimed, false if claimed before, null if a concurrent claim did not end within {@code wait} */
    private Boolean attempt(Connection c, Statements st, String key, Duration wait) throws SQLException {
        SqlSession s = SqlSession.of(c);
        return st.bounded(s, wait, true, () -> st.claim(s, st.insertClaim(wait), key, host, OWNER,
                retention.toMillis()));
    }

    private static void pause(String key, long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockInterruptedException(key, e);
        }
    }

    /**
     * Deletes claims (and expired locks) whose retention ran out, in small batches. Run it outside any transaction,
     * e.g. from a scheduler; not needed where a {@link JdbcLockProvider} on the same table runs its reaper.
     *
     * @return the number of rows deleted
     */
    public int reapExpired() {
        return db.reapExpired(500);
    }

    /** @return the table claims are written to */
    public String table() {
        return db.table();
    }

    /** @return how long a committed claim refuses duplicates at least */
    public Duration retention() {
        return retention;
    }

    /** Configures {@link JdbcClaims}. */
    public static final class Builder extends LockTableBuilder<Builder> {
        private final DataSource dataSource;
        private Duration retention = Duration.ofDays(7);
        private Duration wait = Duration.ofSeconds(30);
        private String host;

        private Builder(DataSource dataSource) {
            if (dataSource == null) {
                throw new IllegalArgumentException("dataSource must not be null");
            }
            this.dataSource = dataSource;
        }

        /**
         * @param retention how long a committed claim refuses duplicates at least, before the reaper may delete it;
         *     7 days by default. Make it longer than any client retries a submission.
         * @return this builder
         */
        public Builder retention(Duration retention) {
            if (retention == null || retention.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new IllegalArgumentException("retention must be at least 1 second, was " + retention);
            }
            this.retention = retention;
            return this;
        }

        /**
         * @param wait how long {@link #claim(String)} waits for a concurrent, uncommitted claim of the same key;
         *     30 s by default
         * @return this builder
         */
        public Builder waitTime(Duration wait) {
            if (wait == null || wait.isNegative()) {
                throw new IllegalArgumentException("wait must be zero or positive, was " + wait);
            }
            this.wait = wait;
            return this;
        }

        /**
         * @param host the host name written as the claim's owner host; the local host name by default
         * @return this builder
         */
        public Builder ownerHost(String host) {
            if (host == null || host.isBlank()) {
                throw new IllegalArgumentException("ownerHost must not be blank");
            }
            this.host = host;
            return this;
        }

        /** @return the claims; they reach the database only when first used */
        public JdbcClaims build() {
            return new JdbcClaims(this);
        }
    }
}
