package io.txlock.jdbc;

import io.txlock.spi.Grant;

/**
 * A lock granted by the JDBC provider.
 *
 * @param name the lock name
 * @param fencingToken the row's new version
 * @param ownerId the owner written to the row; null for a row lock ({@link io.txlock.Strategy#SELECT_FOR_UPDATE}) and
 *     an advisory lock ({@link io.txlock.Strategy#ADVISORY}), which write none
 * @param leased whether the row (or the held connection) is renewed by the core
 * @param endsWithTransaction whether the grant joined the caller's transaction
 * @param transaction the provider's own transaction that holds the row lock (SELECT_FOR_UPDATE in LEASE scope),
 *     else null
 */
record JdbcGrant(String name, long fencingToken, String ownerId, boolean leased, boolean endsWithTransaction,
        JdbcAccess.OwnTransaction transaction) implements Grant {

    @Override
    public String toString() {
        return "'" + name + "' token " + fencingToken;
    }
}
