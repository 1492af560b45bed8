package io.txlock.jpa;

import io.txlock.LockException;
import io.txlock.LockInfo;
import io.txlock.Strategy;
import io.txlock.entity.MethodLock;
import io.txlock.jdbc.LockTableProvider;
import io.txlock.jdbc.LockTableReaper;
import io.txlock.jdbc.ReapedTableBuilder;
import io.txlock.jdbc.RowLease;
import io.txlock.spi.Attempt;
import io.txlock.spi.Grant;
import io.txlock.spi.LockRequest;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Locks as {@link MethodLock} entities, through plain JPA, with one of three {@link Strategy strategies}: the JDBC
 * provider's algorithm and rows, for applications that hold an {@link EntityManager} rather than a connection.
 *
 * <pre>{@code
 * // Jakarta EE: TRANSACTION scope joins the container's transaction through the injected EntityManager;
 * // LEASE scope uses a RESOURCE_LOCAL persistence unit (a non-jta-data-source) of its own
 * LockProvider provider = JpaLockProvider.builder(leaseUnit)       // EntityManagerFactory, RESOURCE_LOCAL
 *         .entityManager(() -> entityManager)                      // @PersistenceContext EntityManager
 *         .strategy(Strategy.SELECT_FOR_UPDATE)
 *         .build();
 * // Java SE with resource-local transactions: see JpaTransactions
 * }</pre>
 *
 * <p>The persistence unit(s) must manage {@link MethodLock}, mapped to the lock table (DDL in the {@code txlock-sql}
 * artifact). In {@link io.txlock.LockScope#TRANSACTION TRANSACTION} scope every statement runs through the caller's
 * entity manager, inside the caller's transaction, so the lock and the business entities commit or roll back
 * together; the row is freed just before commit. In LEASE scope the provider uses entity managers of its own.
 *
 * <p><b>Fencing tokens and {@code @Version}.</b> {@code MethodLock.version} is the fencing token. A grant takes
 * the next token from the same sequence (MySQL/MariaDB: AUTO_INCREMENT table) as the JDBC provider, which no
 * rollback takes back. In LEASE scope the provider runs the JDBC provider's own algorithms as native queries
 * ({@link io.txlock.jdbc.RowLease} for OPTIMISTIC_VERSION and UNIQUE_INSERT, which write the token with a statement
 * guarded by the version they read; {@link io.txlock.jdbc.RowLock} for SELECT_FOR_UPDATE, which writes nothing); in
 * TRANSACTION scope it writes the token with a JPQL bulk update guarded by the version it locked. JPA's own increment
 * ({@code version + 1} on flush) is never used, because it could repeat a token after a rollback or collide with
 * the sequence: the provider never flushes changes to a managed {@code MethodLock}; it only reads, locks,
 * persists new rows and detaches them. Tokens therefore grow strictly per name, across both providers.
 *
 * <p><b>Clock and waits.</b> Leases are computed with the database clock, never the client's. A lock wait
 * ({@code PESSIMISTIC_WRITE} with the standard lock-timeout hint) is bounded by the caller's wait through the
 * session's lock timeout, as the JDBC provider does, because Hibernate 6.6 ignores positive timeout hints on
 * PostgreSQL, H2 and MySQL and rounds them to whole seconds on MariaDB. A lock that is not granted in time is a
 * {@code LockTimeoutException} to JPA, which leaves the caller's transaction usable; on PostgreSQL the attempt also
 * runs in a savepoint so that the caller's transaction is not aborted.
 *
 * <p>A reaper thread deletes rows whose lease ran out, with the JDBC provider's statements, in small batches that
 * skip locked rows, so it is safe on every node at once; {@link Builder#reaperPeriod} turns it off.
 */
public final class JpaLockProvider extends LockTableProvider {


    private final JpaAccess db;
    private final JpaStrategy steps;
    private final int reaperBatch;
    private final LockTableReaper reaper;

    private JpaLockProvider(Builder b) {
        this(b, new JpaAccess(b.factory, b.callers, b.lockTable(), b.lockDialect()));
    }

    private JpaLockProvider(Builder b, JpaAccess db) {
        super("jpa", b.strategy, db.table(), db::dialect);
        this.db = db;
        this.steps = switch (b.strategy) {
            case SELECT_FOR_UPDATE -> new JpaSelectForUpdate(db);
            case OPTIMISTIC_VERSION, UNIQUE_INSERT -> new JpaRowLease(db, RowLease.of(b.strategy));
            case ADVISORY -> throw new IllegalStateException("checked by the builder");
        };
        this.reaperBatch = b.reaperBatch();
        this.reaper = LockTableReaper.start("txlock-jpa-reaper-" + b.lockTable(), b.reaperPeriod(), b.lockTable(), this::reapExpired);
    }

    /**
     * @param factory a RESOURCE_LOCAL entity manager factory managing {@link MethodLock}: the provider's own entity
     *     managers for LEASE-scoped locks and for reads that must not join the caller's transaction
     * @return a builder
     */
    public static Builder builder(EntityManagerFactory factory) {
        return new Builder(factory);
    }

    /**
     * A provider whose TRANSACTION-scoped locks join {@code transactions}' entity manager. Give the same
     * {@code transactions} to {@code LockManager.Builder.transactions}.
     *
     * @param transactions resource-local transactions
     * @return a builder
     */
    public static Builder builder(JpaTransactions transactions) {
        return new Builder(transactions.factory()).entityManager(transactions::currentEntityManager);
    }

    /**
     * JPA has no way to cancel a statement that waits for a row lock, so a long wait is a series of waits of at most
     * {@link #CANCELLABLE_WAIT}, each a chance for a cancelled attempt (an interrupted caller, a closing manager) to
     * stop. The holder's release still wakes the waiting statement at once.
     */
    private Attempt acquireLeaseInSlices(LockRequest r) {
        long deadline = System.nanoTime() + r.maxBlock().toNanos();
        io.txlock.spi.Cancellation.Registration watched = r.cancellation().onCancel(() -> { });
        try {
            while (true) {
                long left = Math.max(0, deadline - System.nanoTime());
                Duration slice = Duration.ofNanos(Math.min(left, CANCELLABLE_WAIT.toNanos()));
                Attempt attempt = steps.acquireLease(new LockRequest(r.name(), r.owner(), r.lease(), slice, false,
                        r.listener(), r.cancellation()));
                if (attempt.isGranted() || left <= slice.toNanos() || r.cancellation().isCancelled()) {
                    return attempt;
                }
            }
        } finally {
            watched.close();
        }
    }

    /** The longest single lock wait of a LEASE-scoped attempt. */
    static final Duration CANCELLABLE_WAIT = Duration.ofMillis(200);

    @Override
    public Attempt tryAcquire(LockRequest request) {
        if (!request.transactional()) {
            return call(() -> "acquire '" + request.name() + "'", () -> acquireLeaseInSlices(request));
        }
        try {
            return steps.acquireInCallerTransaction(request);
        } catch (LockException | IllegalArgumentException | IllegalStateException e) {
            throw e;
        } catch (RuntimeException e) {
            throw db.failure("acquire '" + request.name() + "' in the caller's transaction", e, true);
        }
    }

    @Override
    public void renew(Grant grant, Duration lease) {
        onGrant(grant, "renew '%s'", g -> steps.renew(g, lease));
    }

    @Override
    public void release(Grant grant) {
        onGrant(grant, "release '%s'", steps::release);
    }

    @Override
    public void beforeCompletion(Grant grant) {
        onGrant(grant, "free '%s' before commit", steps::beforeCompletion);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return call(() -> "inspect '" + name + "'", () -> steps.inspect(name));
    }

    /**
     * Deletes every row whose lease ran out (dead holders, and rows of released locks), in batches that skip rows
     * locked right now, with the JDBC provider's statements. The reaper thread calls it periodically; safe to call
     * on every node at once, and next to JDBC providers' reapers.
     *
     * @return the number of rows deleted
     */
    public int reapExpired() {
        int total = LockTableReaper.reapAll(() -> call(() -> "reap expired locks", () -> db.reap(reaperBatch)), reaperBatch);
        run(() -> "purge used tokens", () -> db.purgeTokens(reaperBatch * 10));
        return total;
    }

    /** Stops the reaper. The entity manager factories stay open: they are the application's. */
    @Override
    public void close() {
        if (reaper != null) {
            reaper.close();
        }
    }

    private <T> T call(Supplier<String> what, Supplier<T> work) {
        try {
            return work.get();
        } catch (LockException | IllegalArgumentException | IllegalStateException e) {
            throw e;
        } catch (RuntimeException e) {
            throw db.failure(what.get(), e);
        }
    }

    private void run(Supplier<String> what, Runnable work) {
        call(what, () -> {
            work.run();
            return null;
        });
    }

    /** Runs work on a grant of this provider; {@code what} names it with the lock's name for {@code %s}. */
    private void onGrant(Grant grant, String what, java.util.function.Consumer<JpaGrant> work) {
        JpaGrant g = mine(grant);
        run(() -> what.formatted(g.name()), () -> work.accept(g));
    }

    private static JpaGrant mine(Grant grant) {
        if (grant instanceof JpaGrant g) {
            return g;
        }
        throw new IllegalArgumentException("not a grant of a JpaLockProvider: " + grant);
    }

    /** Configures a {@link JpaLockProvider}. */
    public static final class Builder extends ReapedTableBuilder<Builder> {
        private final EntityManagerFactory factory;
        private Supplier<EntityManager> callers;
        private Strategy strategy = Strategy.SELECT_FOR_UPDATE;

        private Builder(EntityManagerFactory factory) {
            if (factory == null) {
                throw new IllegalArgumentException("factory must not be null: pass a RESOURCE_LOCAL EntityManagerFactory"
                        + " whose persistence unit manages io.txlock.entity.MethodLock");
            }
            this.factory = factory;
        }

        /**
         * @param callers gives the calling thread's entity manager, joined to its transaction, for
         *     TRANSACTION-scoped locks: {@code () -> entityManager} for a container-managed (injected) one
         * @return this builder
         */
        public Builder entityManager(Supplier<EntityManager> callers) {
            if (callers == null) {
                throw new IllegalArgumentException("callers must not be null");
            }
            this.callers = callers;
            return this;
        }

        /**
         * @param strategy how to lock, one of the row strategies; {@link Strategy#SELECT_FOR_UPDATE} by default
         * @return this builder
         * @throws IllegalArgumentException for {@link Strategy#ADVISORY}, which takes the database's advisory locks
         *     through JDBC: use {@code JdbcLockProvider} for it
         */
        public Builder strategy(Strategy strategy) {
            if (strategy == null || strategy == Strategy.ADVISORY) {
                throw new IllegalArgumentException("strategy must be one of SELECT_FOR_UPDATE, OPTIMISTIC_VERSION,"
                        + " UNIQUE_INSERT for the JPA provider, was " + strategy + (strategy == null ? "" : ": ADVISORY locks"
                        + " are the database's advisory locks, taken through JDBC: build a JdbcLockProvider over the"
                        + " persistence unit's DataSource for it (its TRANSACTION-scoped locks join the same JTA transaction)"));
            }
            this.strategy = strategy;
            return this;
        }

        /** @return the provider; it reaches the database only when first used */
        public JpaLockProvider build() {
            return new JpaLockProvider(this);
        }
    }
}
