package io.txlock.jpa;

import io.txlock.spi.Grant;
import jakarta.persistence.EntityManager;

/**
 * A lock granted by the JPA provider.
 *
 * @param name the lock name
 * @param fencingToken the row's new version
 * @param ownerId the owner written to the row
 * @param leased whether the row (or the held transaction) is renewed by the core
 * @param endsWithTransaction whether the grant joined the caller's transaction
 * @param holder the entity manager whose open transaction holds the row lock (SELECT_FOR_UPDATE in LEASE scope),
 *     else null; used by one thread at a time, under its own monitor
 */
record JpaGrant(String name, long fencingToken, String ownerId, boolean leased, boolean endsWithTransaction,
        EntityManager holder) implements Grant {

    @Override
    public String toString() {
        return "'" + name + "' token " + fencingToken;
    }
}
