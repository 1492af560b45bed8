package io.txlock.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A {@link CallerTransaction} for a transaction manager of one's own (local JDBC or resource-local JPA
 * transactions): it records what the core registers and runs it when told. The manager calls
 * {@link #beforeCompletion()} just before it commits, and {@link #afterCompletion(boolean)} once the transaction
 * ended, whichever way.
 */
public class LocalTransaction implements CallerTransaction {

    private final List<Runnable> before = new ArrayList<>();
    private final List<Consumer<Boolean>> after = new ArrayList<>();
    private volatile boolean rollbackOnly;

    /** A transaction with nothing registered yet. */
    public LocalTransaction() {
    }

    /** @return this object: each local transaction is its own key */
    @Override
    public Object key() {
        return this;
    }

    @Override
    public synchronized void onCompletion(Runnable beforeCompletion, Consumer<Boolean> afterCompletion) {
        before.add(beforeCompletion);
        after.add(afterCompletion);
    }

    @Override
    public void setRollbackOnly() {
        rollbackOnly = true;
    }

    /** @return whether the transaction may only roll back: a lock it relied on was lost */
    public boolean isRollbackOnly() {
        return rollbackOnly;
    }

    /** Runs the registered before-completion work, in order; the manager commits only if it all returns. */
    public void beforeCompletion() {
        List<Runnable> all;
        synchronized (this) {
            all = List.copyOf(before);
        }
        for (Runnable r : all) {
            r.run();
        }
    }

    /**
     * Runs the registered after-completion work, in order.
     *
     * @param committed whether the transaction committed
     */
    public void afterCompletion(boolean committed) {
        List<Consumer<Boolean>> all;
        synchronized (this) {
            all = List.copyOf(after);
        }
        for (Consumer<Boolean> c : all) {
            c.accept(committed);
        }
    }
}
