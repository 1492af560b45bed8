package io.txlock.jpa;

import io.txlock.spi.Grant;

/**
 * A lock granted by the JPA provider.
 *
 * @param name the lock name
 * @param fencingToken the row's new version
 * @param ownerId the owner written to the row
 * @param leased whether the row (or the held transaction) is renewed by the core
 * @param endsWithTransaction whether the grant joined the caller's transaction
 * @param holder the session of the entity manager whose open transaction holds the row lock (SELECT_FOR_UPDATE in
 *     LEASE scope), else null
 */
record JpaGrant(String name, long fencingToken, String ownerId, boolean leased, boolean endsWithTransaction,
        JpaSession holder) implements Grant {

    @Override
    public String toString() {
        return "'" + name + "' token " + fencingToken;
    }
}
