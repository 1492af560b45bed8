package io.txlock.core;

import java.util.concurrent.ThreadLocalRandom;

/**
 * An element of a concurrent set that is equal only to itself, with a random hash drawn once: cheaper than the
 * identity hash, which the JVM writes into the object's header.
 */
abstract class RandomHashed {

    private final int hash = ThreadLocalRandom.current().nextInt();

    @Override
    public final int hashCode() {
        return hash;
    }

    @Override
    public final boolean equals(Object o) {
        return this == o;
    }
}
