package io.txlock.it.adapterapp;

/** The adapter's connection factories the application uses: two JDBC lock managers (two nodes) and Redis. */
public enum Node {
    /** {@code java:/txlock/locks}. */
    A,
    /** {@code java:/txlock/locks-b}: another lock manager on the same database. */
    B,
    /** {@code java:/txlock/redis}. */
    REDIS
}
