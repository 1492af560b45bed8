package io.txlock.jpa;

import io.txlock.jdbc.RowLock;
import io.txlock.jdbc.SqlSession;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityTransaction;
import jakarta.persistence.PersistenceException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

/**
 * The lock table's statements as native queries of an entity manager, in its transaction; outside one (after
 * {@link #commit()} or {@link #rollback()} of a resource-local entity manager) a statement begins a new one. A failed
 * statement throws the {@link SQLException} the JPA provider wraps (and the provider may have marked the transaction
 * rollback-only: see {@link JpaRowLease} and {@link #commit()}). As a {@link RowLock.Holder}, the session of an
 * entity manager of the provider's own ({@link JpaAccess#openTransaction()}).
 */
record JpaSession(EntityManager em) implements SqlSession, RowLock.Holder {

    @Override
    public int update(String sql, Object... params) throws SQLException {
        try {
            return JpaAccess.update(inTransaction(), sql, params);
        } catch (PersistenceException e) {
            throw sqlException(e);
        }
    }

    @Override
    public Object[] queryRow(String sql, Object... params) throws SQLException {
        List<?> rows;
        try {
            rows = JpaAccess.nativeQuery(inTransaction(), sql, params).getResultList();
        } catch (PersistenceException e) {
            throw sqlException(e);
        }
        if (rows.isEmpty()) {
            return null;
        }
        Object row = rows.get(0);
        return row instanceof Object[] columns ? columns : new Object[] {row};
    }

    @Override
    public Object[] control(String sql) throws SQLException {
        if (sql.startsWith("SELECT")) {
            return queryRow(sql);
        }
        update(sql);
        return null;
    }

    /** Runs the statement, then {@code selectId}: native queries cannot read generated keys. */
    @Override
    public OptionalLong lastInsertId(String sql, String selectId, Object... params) throws SQLException {
        return update(sql, params) == 0 ? OptionalLong.empty() : queryLong(selectId);
    }

    /**
     * Commits; a transaction the JPA provider marked rollback-only is rolled back instead: the only statement that
     * marks it is one whose failure the algorithm took in its stride (a duplicate key, a lock wait that ran out),
     * which wrote nothing.
     */
    @Override
    public void commit() throws SQLException {
        EntityTransaction tx = em.getTransaction();
        try {
            if (tx.getRollbackOnly()) {
                tx.rollback();
            } else {
                tx.commit();
            }
        } catch (PersistenceException e) {
            throw sqlException(e);
        }
    }

    @Override
    public void rollback() throws SQLException {
        EntityTransaction tx = em.getTransaction();
        try {
            if (tx.isActive()) {
                tx.rollback();
            }
        } catch (PersistenceException e) {
            throw sqlException(e);
        }
    }

    /** Runs {@code SELECT 1}, bounded by the standard query-timeout hint. */
    @Override
    public boolean alive(Duration lease) {
        try {
            JpaAccess.nativeQuery(inTransaction(), "SELECT 1")
                    .setHint(JpaAccess.QUERY_TIMEOUT, (int) Math.max(1_000, Math.min(30_000, lease.toMillis() / 3)))
                    .getResultList();
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Override
    public SqlSession session() {
        return this;
    }

    @Override
    public boolean isOpen() {
        return em.isOpen();
    }

    /** Rolls back and closes the entity manager ({@link JpaAccess#endTransaction}). */
    @Override
    public void end() {
        JpaAccess.endTransaction(em);
    }

    @Override
    public void close() {
        em.close();
    }

    /** @return the entity manager, in a transaction: a resource-local one's own, begun here if none is active */
    private EntityManager inTransaction() {
        if (!em.isJoinedToTransaction()) {
            em.getTransaction().begin();
        }
        return em;
    }

    /** @return the driver's exception within {@code e}, or {@code e} itself if there is none */
    private static SQLException sqlException(PersistenceException e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql) {
                return sql;
            }
        }
        throw e;
    }

    /** Work on a {@link JpaSession}, whose failures are {@link SQLException}s. */
    @FunctionalInterface
    interface SqlWork<T> {
        T run() throws SQLException;
    }

    /** @return what {@code work} returned; its {@link SQLException} is thrown as a {@link PersistenceException} */
    static <T> T unchecked(SqlWork<T> work) {
        try {
            return work.run();
        } catch (SQLException e) {
            throw new PersistenceException(e.getMessage(), e);
        }
    }
}
