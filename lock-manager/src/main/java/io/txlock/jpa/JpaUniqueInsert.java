package io.txlock.jpa;

/**
 * {@link io.txlock.Strategy#UNIQUE_INSERT}: {@code persist} + {@code flush} the holder's row; the primary key refuses
 * a second holder. A row whose lease ran out (a dead holder's) is taken over with the version-guarded
 * {@link #GRANT_IF_FREE}. Release deletes the row. In TRANSACTION scope, where waiters queue on the row's lock,
 * the row is set free before commit instead: deleted, it would leave them a locking read of a missing row, which
 * on MySQL/MariaDB locks the gap where it was and so blocks its own re-creation until their transactions end.
 */
final class JpaUniqueInsert extends JpaRowLease {

    JpaUniqueInsert(JpaAccess db) {
        super(db);
    }

    @Override
    String releaseSql() {
        return db.sql().delete();
    }

    @Override
    void beforeCompletion(JpaGrant g) {
        JpaAccess.update(db.callerEntityManager(), db.sql().free(), g.name(), g.fencingToken(), g.ownerId());
    }
}
