package io.txlock.jpa;

/**
 * {@link io.txlock.Strategy#UNIQUE_INSERT}: {@code persist} + {@code flush} the holder's row; the primary key refuses
 * a second holder. A row whose lease ran out (a dead holder's) is taken over with the version-guarded
 * {@link #GRANT_IF_FREE}. Release deletes the row.
 */
final class JpaUniqueInsert extends JpaRowLease {

    JpaUniqueInsert(JpaAccess db) {
        super(db);
    }

    @Override
    String releaseSql() {
        return db.sql().delete();
    }
}
