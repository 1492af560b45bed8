package io.txlock.jpa;

/**
 * {@link io.txlock.Strategy#OPTIMISTIC_VERSION}: read the row's {@code @Version}, then compare-and-set it
 * ({@link #GRANT_IF_FREE}: {@code … WHERE name = :name AND version = :read AND (state = FREE OR expires_at < now)}).
 * Release sets the row FREE; the row stays for the next holder.
 */
final class JpaOptimisticVersion extends JpaRowLease {

    JpaOptimisticVersion(JpaAccess db) {
        super(db);
    }

    @Override
    String releaseSql() {
        return db.sql().free();
    }
}
