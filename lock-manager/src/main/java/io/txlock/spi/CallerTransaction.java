package io.txlock.spi;

import java.util.function.Consumer;

/** The caller's active transaction, as seen by the core. */
public interface CallerTransaction {

    /** @return a value that is equal for every call within the same transaction, and only then */
    Object key();

    /**
     * Registers work for the end of the transaction.
     *
     * @param beforeCompletion run before commit, inside the transaction; not run on rollback
     * @param afterCompletion run after the transaction ended, with {@code true} if it committed
     */
    void onCompletion(Runnable beforeCompletion, Consumer<Boolean> afterCompletion);

    /** Marks the transaction so that it can only roll back: used when a lock it relies on was lost. */
    void setRollbackOnly();
}
