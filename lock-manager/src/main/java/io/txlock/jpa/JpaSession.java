package io.txlock.jpa;

import io.txlock.jdbc.SqlSession;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;

/**
 * The lock table's statements as native queries of an entity manager, in its transaction. A failed statement throws
 * the {@link SQLException} the JPA provider wraps (and the provider may have marked the transaction rollback-only:
 * see {@link JpaRowLease}).
 */
record JpaSession(EntityManager em) implements SqlSession {

    @Override
    public int update(String sql, Object... params) throws SQLException {
        try {
            return JpaAccess.update(em, sql, params);
        } catch (PersistenceException e) {
            throw sqlException(e);
        }
    }

    @Override
    public Object[] queryRow(String sql, Object... params) throws SQLException {
        List<?> rows;
        try {
            rows = JpaAccess.nativeQuery(em, sql, params).getResultList();
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

    /** @return the driver's exception within {@code e}, or {@code e} itself if there is none */
    private static SQLException sqlException(PersistenceException e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql) {
                return sql;
            }
        }
        throw e;
    }
}
