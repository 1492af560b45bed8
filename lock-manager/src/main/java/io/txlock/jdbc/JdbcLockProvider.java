package io.txlock.jdbc;

import io.txlock.LockBackendException;
import io.txlock.LockInfo;
import io.txlock.Strategy;
import io.txlock.spi.Attempt;
import io.txlock.spi.Grant;
import io.txlock.spi.LockRequest;
import io.txlock.spi.TransactionSupport;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locks as rows of a table ({@code method_lock} by default; DDL in the {@code txlock-sql} artifact or
 * {@link JdbcLockSchema}) on H2, PostgreSQL, MySQL and MariaDB, with one of three {@link Strategy strategies}; or as
 * the database's own advisory locks ({@link Strategy#ADVISORY}: PostgreSQL, MySQL and MariaDB, not H2), which use the
 * table's token sequence only.
 *
 * <pre>{@code
 * LockProvider provider = JdbcLockProvider.builder(dataSource)
 *         .strategy(Strategy.SELECT_FOR_UPDATE)
 *         .table("method_lock")
 *         .build();
 * }</pre>
 *
 * <p>In {@link io.txlock.LockScope#TRANSACTION TRANSACTION} scope the lock's SQL runs on the caller's own
 * transactional connection (the container's JTA datasource), so the lock and the business rows commit or roll
 * back together. In LEASE scope it runs on connections of its own: pass a non-JTA datasource as
 * {@link Builder#leaseDataSource(DataSource)} if LEASE locks are taken while a JTA transaction is active.
 *
 * <p>Fencing tokens come from a sequence (an AUTO_INCREMENT table on MySQL/MariaDB) that no rollback takes
 * back; expiry is computed with the database clock. A reaper thread deletes rows whose lease ran out, in small
 * batches that skip locked rows, so it is safe on every node at once.
 */
public final class JdbcLockProvider extends LockTableProvider {

    private static final Logger log = LoggerFactory.getLogger(JdbcLockProvider.class);
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,47}");

    private final JdbcAccess db;
    private final LockStrategy steps;
    private final int reaperBatch;
    private final LockTableReaper reaper;
    private final JdbcTransactions transactions;

    private JdbcLockProvider(Builder b) {
        this(b, new JdbcAccess(b.dataSource, b.leaseDataSource != null ? b.leaseDataSource : b.dataSource, b.lockDialect(),
                b.lockTable()));
    }

    private JdbcLockProvider(Builder b, JdbcAccess db) {
        super("jdbc", b.strategy, db.table(), db::dialect);
        this.transactions = b.transactions;
        this.db = db;
        this.steps = switch (b.strategy) {
            case SELECT_FOR_UPDATE -> new SelectForUpdate(db);
            case OPTIMISTIC_VERSION, UNIQUE_INSERT -> new RowLeaseStrategy(db, RowLease.of(b.strategy));
            case ADVISORY -> new Advisory(db);
        };
        if (b.strategy == Strategy.ADVISORY && b.lockDialect() != null) {
            Advisory.requireAdvisoryLocks(b.lockDialect());
        }
        try {
            db.checkTable();
        } catch (LockBackendException e) {
            log.warn("{}: the database cannot be reached now; the lock table will be checked at first use: {}", describe(),
                    e.getMessage());
        }
        if (b.strategy == Strategy.ADVISORY && db.dialect() != null) {
            Advisory.requireAdvisoryLocks(db.dialect());
        }
        this.reaperBatch = b.reaperBatch();
        this.reaper = LockTableReaper.start("txlock-reaper-" + b.lockTable(), b.reaperPeriod(), b.lockTable(), this::reapExpired);
    }

    /**
     * @param dataSource the application's datasource; in TRANSACTION scope the lock's SQL joins its transaction
     * @return a builder
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * A provider whose TRANSACTION-scoped locks join {@code transactions}' connection and whose LEASE locks use
     * connections of their own. A manager built over it finds the caller's transaction in {@code transactions}.
     *
     * @param transactions local JDBC transactions over the application's datasource
     * @return a builder
     */
    public static Builder builder(JdbcTransactions transactions) {
        if (transactions == null) {
            throw new IllegalArgumentException("transactions must not be null: use JdbcTransactions.over(dataSource)");
        }
        Builder b = new Builder(transactions.dataSource()).leaseDataSource(transactions.target());
        b.transactions = transactions;
        return b;
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        if (request.maxBlock().isZero()) {
            return steps.tryAcquire(request);
        }
        CancellableStatements cancellable = CancellableStatements.during(request.cancellation());
        try {
            return steps.tryAcquire(request);
        } finally {
            cancellable.close();
        }
    }

    @Override
    public void renew(Grant grant, Duration lease) {
        steps.renew(mine(grant), lease);
    }

    @Override
    public void release(Grant grant) {
        steps.release(mine(grant));
    }

    @Override
    public void beforeCompletion(Grant grant) {
        steps.beforeCompletion(mine(grant));
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return steps.inspect(name);
    }

    /**
     * @return listing and forced release of this table's locks; a {@link Strategy#SELECT_FOR_UPDATE} lock is listed
     *     without owner or token and cannot be force-released (see {@code LockAdmin}). None for
     *     {@link Strategy#ADVISORY}: its locks are the database's, under a hash of the name, and no row records them
     */
    @Override
    public Optional<io.txlock.spi.LockAdministration> administration() {
        return strategy() == Strategy.ADVISORY ? Optional.empty() : Optional.of(new JdbcLockAdministration(db, strategy()));
    }

    /** @return the local JDBC transactions this provider was built over, if it was */
    @Override
    public Optional<TransactionSupport> transactions() {
        return Optional.ofNullable(transactions);
    }

    /**
     * Deletes every row whose lease ran out (dead holders, and rows of released locks), in batches that skip
     * rows locked right now. The reaper thread calls it periodically; safe to call on every node at once.
     *
     * @return the number of rows deleted
     */
    public int reapExpired() {
        return db.reapExpired(reaperBatch);
    }

    @Override
    public void close() {
        if (reaper != null) {
            reaper.close();
        }
        steps.close();
        db.close();
    }

    private static JdbcGrant mine(Grant grant) {
        if (grant instanceof JdbcGrant g) {
            return g;
        }
        throw new IllegalArgumentException("not a grant of a JdbcLockProvider: " + grant);
    }

    /**
     * @param table a lock table's name
     * @return {@code table}
     * @throws IllegalArgumentException unless it is a plain identifier
     */
    static String validTable(String table) {
        if (table == null || !IDENTIFIER.matcher(table).matches()) {
            throw new IllegalArgumentException("table must be a plain SQL identifier (a letter or _, then letters, digits"
                    + " or _, at most 48 characters; set the schema on the connection instead of qualifying), was '" + table + "'");
        }
        return table;
    }

    /** Configures a {@link JdbcLockProvider}. */
    public static final class Builder extends ReapedTableBuilder<Builder> {
        private final DataSource dataSource;
        private DataSource leaseDataSource;
        private Strategy strategy = Strategy.SELECT_FOR_UPDATE;
        private JdbcTransactions transactions;

        private Builder(DataSource dataSource) {
            if (dataSource == null) {
                throw new IllegalArgumentException("dataSource must not be null");
            }
            this.dataSource = dataSource;
        }

        /**
         * @param strategy how to lock; {@link Strategy#SELECT_FOR_UPDATE} by default. {@link Strategy#ADVISORY} is
         *     refused by {@link #build()} on H2, which has no advisory locks
         * @return this builder
         */
        public Builder strategy(Strategy strategy) {
            if (strategy == null) {
                throw new IllegalArgumentException("strategy must be one of " + java.util.Arrays.toString(Strategy.values()));
            }
            this.strategy = strategy;
            return this;
        }

        /**
         * @param leaseDataSource a datasource whose connections never join a JTA transaction, for LEASE-scoped
         *     locks; by default the main datasource. For {@link Strategy#SELECT_FOR_UPDATE} on MySQL/MariaDB, a pool
         *     that hands out connections with auto-commit off (HikariCP {@code autoCommit=false}) saves two round
         *     trips per lock: a LEASE row lock is an open transaction, and each switch of auto-commit is a round trip
         *     with those drivers. The row strategies are better served by auto-commit on, as each of their statements
         *     commits at once.
         * @return this builder
         */
        public Builder leaseDataSource(DataSource leaseDataSource) {
            if (leaseDataSource == null) {
                throw new IllegalArgumentException("leaseDataSource must not be null");
            }
            this.leaseDataSource = leaseDataSource;
            return this;
        }

        /**
         * Builds the provider and, if the database can be reached, detects its dialect (unless set) and checks that
         * the table exists. If it cannot be reached (no connection within the datasource's own timeout, which this
         * call then waits for), the provider is built all the same and checks at first use; until the database is
         * reached every operation fails with {@link LockBackendException}.
         *
         * @return the provider
         * @throws IllegalArgumentException if the table does not exist (the message says how to create it), or if the
         *     strategy is {@link Strategy#ADVISORY} and the database is H2
         */
        public JdbcLockProvider build() {
            return new JdbcLockProvider(this);
        }
    }
}
