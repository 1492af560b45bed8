package io.txlock.jpa;

import io.txlock.LockBackendException;
import io.txlock.entity.MethodLock;
import io.txlock.jdbc.JdbcDialect;
import io.txlock.jdbc.LockTableSql;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.EntityTransaction;
import jakarta.persistence.FlushModeType;
import jakarta.persistence.LockModeType;
import jakarta.persistence.LockTimeoutException;
import jakarta.persistence.PersistenceException;
import jakarta.persistence.PessimisticLockException;
import jakarta.persistence.Query;
import jakarta.persistence.QueryTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Entity managers, native SQL and error translation shared by the three strategies. All SQL comes from the
 * JDBC provider's dialect classes through {@link LockTableSql}; this class only runs it through JPA.
 */
final class JpaAccess {

    /** The standard hint that bounds a pessimistic lock's wait, in milliseconds. */
    static final String LOCK_TIMEOUT = "jakarta.persistence.lock.timeout";
    /** The standard hint that bounds a query, in milliseconds. */
    static final String QUERY_TIMEOUT = "jakarta.persistence.query.timeout";

    private final EntityManagerFactory factory;
    private final Supplier<EntityManager> callers;
    private final String table;
    private final JdbcDialect configuredDialect;
    private volatile LockTableSql sql;

    JpaAccess(EntityManagerFactory factory, Supplier<EntityManager> callers, String table, JdbcDialect dialect) {
        this.factory = factory;
        this.callers = callers;
        this.table = table;
        this.configuredDialect = dialect;
    }

    String table() {
        return table;
    }

    /** @return the dialect, or null while the database was never reached */
    JdbcDialect dialect() {
        LockTableSql s = sql;
        return s != null ? s.dialect() : configuredDialect;
    }

    LockTableSql sql() {
        LockTableSql s = sql;
        if (s == null) {
            synchronized (this) {
                s = sql;
                if (s == null) {
                    s = LockTableSql.of(configuredDialect != null ? configuredDialect : detectDialect(), table);
                    sql = s;
                }
            }
        }
        return s;
    }

    private JdbcDialect detectDialect() {
        String version;
        try {
            version = inOwnTransaction(em -> String.valueOf(single(em, LockTableSql.VERSION_QUERY)));
        } catch (PersistenceException noVersionFunction) {
            try {
                inOwnTransaction(em -> single(em, LockTableSql.H2_VERSION_QUERY));
                return JdbcDialect.H2;
            } catch (PersistenceException notH2) {
                throw failure("detect the database (set JpaLockProvider.Builder.dialect)", notH2);
            }
        }
        return LockTableSql.dialectOfVersion(version);
    }

    // ---- entity managers

    /** @return the caller's entity manager, joined to the caller's transaction */
    EntityManager callerEntityManager() {
        if (callers == null) {
            throw new IllegalStateException("TRANSACTION scope with the JPA provider needs the caller's EntityManager: set"
                    + " JpaLockProvider.Builder.entityManager(...) (a container-managed EntityManager), or build the"
                    + " provider from JpaTransactions");
        }
        EntityManager em = callers.get();
        if (em == null || !em.isJoinedToTransaction()) {
            throw new IllegalStateException("the caller's EntityManager " + em + " is not joined to the caller's"
                    + " transaction: TRANSACTION-scoped locks must be taken inside the transaction of the EntityManager"
                    + " that JpaLockProvider.Builder.entityManager(...) supplies");
        }
        return em;
    }

    /** Runs work in a transaction of its own, committed before returning unless it was marked rollback-only. */
    <T> T inOwnTransaction(Function<EntityManager, T> work) {
        EntityManager em = factory.createEntityManager();
        try {
            EntityTransaction tx = begin(em);
            try {
                T result = work.apply(em);
                if (tx.getRollbackOnly()) {
                    tx.rollback();
                } else {
                    tx.commit();
                }
                return result;
            } catch (RuntimeException | Error e) {
                if (tx.isActive()) {
                    rollbackQuietly(tx);
                }
                throw e;
            }
        } finally {
            em.close();
        }
    }

    /** @return a new entity manager with an open transaction of its own, for a lock that lives as long as it */
    EntityManager openTransaction() {
        EntityManager em = factory.createEntityManager();
        try {
            begin(em);
            return em;
        } catch (RuntimeException e) {
            em.close();
            throw e;
        }
    }

    /** Ends an entity manager from {@link #openTransaction()}: rolls back, closes. */
    static void endTransaction(EntityManager em) {
        try {
            EntityTransaction tx = em.getTransaction();
            if (tx.isActive()) {
                tx.rollback();
            }
        } finally {
            em.close();
        }
    }

    private static EntityTransaction begin(EntityManager em) {
        EntityTransaction tx;
        try {
            tx = em.getTransaction();
        } catch (IllegalStateException jta) {
            throw new IllegalStateException("the JPA provider's own EntityManagerFactory must be RESOURCE_LOCAL (a persistence"
                    + " unit with a non-jta-data-source), for LEASE-scoped locks and committed reads; " + jta.getMessage(), jta);
        }
        tx.begin();
        return tx;
    }

    private static void rollbackQuietly(EntityTransaction tx) {
        try {
            tx.rollback();
        } catch (RuntimeException ignored) {
            // the connection is broken; the pool discards it
        }
    }

    // ---- native SQL

    static Query nativeQuery(EntityManager em, String sql, Object... params) {
        Query q = em.createNativeQuery(sql).setFlushMode(FlushModeType.COMMIT);
        for (int i = 0; i < params.length; i++) {
            q.setParameter(i + 1, params[i]);
        }
        return q;
    }

    static int update(EntityManager em, String sql, Object... params) {
        return nativeQuery(em, sql, params).executeUpdate();
    }

    /** @return the first column of the first row, or null if there is none */
    static Object single(EntityManager em, String sql, Object... params) {
        List<?> rows = nativeQuery(em, sql, params).getResultList();
        if (rows.isEmpty()) {
            return null;
        }
        Object row = rows.get(0);
        return row instanceof Object[] columns ? columns[0] : row;
    }

    /** A new fencing token and the database clock, read together just before a grant. */
    record Clock(long token, Instant now) {
    }

    Clock tokenAndNow(EntityManager em) {
        LockTableSql s = sql();
        s.tokenInsert().ifPresent(insert -> update(em, insert));
        Object[] row = (Object[]) nativeQuery(em, s.selectTokenAndNow()).getSingleResult();
        long micros = ((Number) row[1]).longValue();
        return new Clock(((Number) row[0]).longValue(),
                Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000));
    }

    /** The committed state of a name's row, judged with the database clock. */
    record RowState(long version, boolean held, Long millisLeft) {
        boolean live() {
            return held && (millisLeft == null || millisLeft >= 0);
        }
    }

    /** @return the row's state, or null if there is no row */
    RowState readState(EntityManager em, String name) {
        List<?> rows = nativeQuery(em, sql().selectState(), name).getResultList();
        if (rows.isEmpty()) {
            return null;
        }
        Object[] row = (Object[]) rows.get(0);
        return new RowState(((Number) row[0]).longValue(), "HELD".equals(String.valueOf(row[1]).trim()),
                row[2] == null ? null : ((Number) row[2]).longValue());
    }

    /** @return the name's row if held and its lease has not run out, judged with the database clock */
    Optional<MethodLock> readHeldRow(EntityManager em, String name) {
        List<?> rows = em.createNativeQuery(sql().selectHeldRow(), MethodLock.class).setFlushMode(FlushModeType.COMMIT)
                .setParameter(1, name).getResultList();
        return rows.stream().map(MethodLock.class::cast).findFirst();
    }

    // ---- reaping

    /** Deletes up to {@code batch} rows whose lease ran out, skipping rows locked right now, in one transaction. */
    int reap(int batch) {
        return inOwnTransaction(em -> {
            int deleted = 0;
            for (Object name : nativeQuery(em, sql().reapCandidates(), batch).getResultList()) {
                deleted += update(em, sql().reapDelete(), String.valueOf(name));
            }
            return deleted;
        });
    }

    /** Deletes up to {@code batch} used token rows where tokens come from a table (MySQL/MariaDB). */
    void purgeTokens(int batch) {
        sql().newestToken().ifPresent(newest -> inOwnTransaction(em -> {
            Object id = single(em, newest);
            return id == null ? 0 : update(em, sql().purgeTokensBelow(batch), ((Number) id).longValue());
        }));
    }

    // ---- waiting

    /**
     * Takes the row lock of a name's row ({@code PESSIMISTIC_WRITE}), waiting as long as the session's lock wait
     * allows: call it inside {@link #bounded}.
     *
     * @return the locked row, or empty if there is no row
     */
    Optional<MethodLock> lockRow(EntityManager em, String name, Duration maxBlock) {
        return Optional.ofNullable(em.find(MethodLock.class, name, LockModeType.PESSIMISTIC_WRITE,
                Map.of(LOCK_TIMEOUT, lockTimeoutHint(maxBlock))));
    }

    /**
     * The lock-timeout hint for a wait. Any hint of 0 or more makes a provider report a lock conflict as
     * {@link LockTimeoutException}, which leaves the transaction usable; the wait itself is bounded by the session
     * ({@link #bounded}), because Hibernate 6.6 ignores positive hints on PostgreSQL, H2 and MySQL, and on MariaDB
     * renders them as {@code WAIT} in rounded whole seconds ({@link LockTableSql#jpaLockTimeoutHint}).
     */
    int lockTimeoutHint(Duration maxBlock) {
        return sql().jpaLockTimeoutHint(waitBound(maxBlock));
    }

    /**
     * Runs work with every lock wait of the session bounded by {@code maxBlock}, and the previous setting given
     * back afterwards.
     *
     * @param callerTx whether {@code em} is the caller's: there only a timeout counts as "held", since any other
     *     error may have marked the caller's transaction rollback-only
     * @return the result, or null if a lock wait ran out; on PostgreSQL the transaction (or savepoint) must then
     *     be rolled back before it is used again, and in the caller's transaction it must be rolled back to a
     *     savepoint after any error, which undoes the setting too
     */
    <T> T bounded(EntityManager em, Duration maxBlock, boolean callerTx, Supplier<T> work) {
        LockTableSql.SessionWait wait = sql().sessionWait(waitBound(maxBlock));
        String previous = String.valueOf(single(em, wait.query()));
        apply(em, wait, wait.value());
        // a setting that ends with the transaction needs no restoring in a transaction of our own, which may
        // even be aborted by now (PostgreSQL, after a duplicate key the work expected)
        boolean restore = !wait.endsWithTransaction() || callerTx;
        T result;
        try {
            result = work.get();
        } catch (RuntimeException e) {
            if (!wait.endsWithTransaction()) {
                try {
                    apply(em, wait, previous);
                } catch (RuntimeException restoreFailed) {
                    e.addSuppressed(restoreFailed);
                }
            }
            if (waitRanOut(e, callerTx)) {
                return null;
            }
            throw e;
        }
        if (restore) {
            apply(em, wait, previous);
        }
        return result;
    }

    private static void apply(EntityManager em, LockTableSql.SessionWait wait, String setting) {
        Query q = nativeQuery(em, wait.update(setting));
        if (wait.updateIsQuery()) {
            q.getResultList();
        } else {
            q.executeUpdate();
        }
    }

    private boolean waitRanOut(RuntimeException e, boolean callerTx) {
        if (e instanceof LockTimeoutException || e instanceof QueryTimeoutException) {
            return true;
        }
        return !callerTx && (e instanceof PessimisticLockException || sql().lockUnavailable(e));
    }

    private static Duration waitBound(Duration maxBlock) {
        Duration most = LockTableSql.maxSingleWait();
        return maxBlock.compareTo(most) > 0 ? most : maxBlock;
    }

    // ---- savepoints: on PostgreSQL an error aborts the whole transaction unless it happened in a savepoint

    /** @return whether attempts in the caller's transaction run in a savepoint, rolled back unless granted */
    boolean usesSavepoints() {
        return sql().savepoint().isPresent();
    }

    void savepoint(EntityManager em) {
        update(em, sql().savepoint().orElseThrow().open());
    }

    void releaseSavepoint(EntityManager em) {
        update(em, sql().savepoint().orElseThrow().release());
    }

    /** Undoes everything since {@link #savepoint}, its row locks and settings included, and ends the savepoint. */
    void rollbackToSavepoint(EntityManager em) {
        update(em, sql().savepoint().orElseThrow().rollback());
        releaseSavepoint(em);
    }

    // ---- errors

    LockBackendException failure(String what, RuntimeException e) {
        return failure(what, e, false);
    }

    /** @param callerTx whether it happened in the caller's transaction, which a deadlock may have doomed */
    LockBackendException failure(String what, RuntimeException e, boolean callerTx) {
        LockTableSql s = sql;
        if (callerTx && s != null && (s.abortsTransaction(e) || s.lockUnavailable(e))) {
            return new LockBackendException("could not " + what + " on table " + table + ": the database chose the caller's"
                    + " transaction as a deadlock victim, or the JPA provider marked it rollback-only; retry the whole"
                    + " transaction (" + e.getMessage() + ")", e);
        }
        JdbcDialect d = dialect();
        return new LockBackendException("could not " + what + " on table " + table + " ("
                + (d == null ? "database not yet reached" : d.name().toLowerCase(Locale.ROOT)) + "): " + e.getMessage(), e);
    }
}
