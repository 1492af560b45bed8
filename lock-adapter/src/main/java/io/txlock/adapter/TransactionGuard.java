package io.txlock.adapter;

import io.txlock.LockException;
import io.txlock.jta.JtaTransactionSupport;
import io.txlock.spi.CallerTransaction;
import io.txlock.spi.TransactionSupport;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * How the adapter's locks take part in JTA transactions: the core's JTA support (locks of scope TRANSACTION end with
 * the transaction, on commit and on rollback), plus one interposed {@link Synchronization} per transaction that
 * keeps a transaction whose lock was lost from committing. It is registered before the core's own synchronizations,
 * so its {@code beforeCompletion} runs first: if a lock taken in the transaction through a {@link LockConnection} is
 * no longer valid (its lease ran out, the backend refused a renewal, the session expired), or the core reported a
 * loss, it marks the transaction rollback-only and throws a {@link LockException} naming the lock, which the
 * transaction manager turns into a {@code RollbackException} for the committer.
 *
 * <p>The core marks a transaction rollback-only as soon as it sees a loss; on the transaction's own thread, before
 * this synchronization ran, that mark is deferred to it, so that the commit fails with the lock's name rather than
 * rolling back in silence (an EJB container rolls back a rollback-only transaction without telling its caller).
 * Neither an XAResource nor a local transaction is enlisted: the JDBC backend locks through the application's own
 * datasource, and Narayana refuses a second one-phase resource next to it (ARJUNA012140).
 */
final class TransactionGuard implements TransactionSupport {

    private final TransactionSynchronizationRegistry registry;
    private final TransactionSupport core;

    /** @param registry the container's registry, from the {@code BootstrapContext} */
    TransactionGuard(TransactionSynchronizationRegistry registry) {
        this.registry = registry;
        this.core = JtaTransactionSupport.of(registry);
    }

    @Override
    public Optional<CallerTransaction> current() {
        Optional<CallerTransaction> transaction = core.current();
        if (transaction.isEmpty()) {
            return transaction;
        }
        Checks checks = checksOfCurrentTransaction();
        return checks == null ? transaction : Optional.of(new Guarded(transaction.get(), checks));
    }

    /**
     * Watches a lock taken through a connection: if it is lost before the transaction of the calling thread completes,
     * that transaction does not commit. Does nothing outside a transaction.
     *
     * @param handle the lock just granted
     */
    void watch(AdapterLockHandle handle) {
        if (registry.getTransactionStatus() != Status.STATUS_ACTIVE) {
            return;
        }
        Checks checks = checksOfCurrentTransaction();
        if (checks != null) {
            checks.watch(handle);
        }
    }

    /** @return this transaction's checks, registered with it on first use; null if it cannot take them any more */
    private Checks checksOfCurrentTransaction() {
        Checks checks = (Checks) registry.getResource(this);
        if (checks == null) {
            checks = new Checks();
            try {
                registry.registerInterposedSynchronization(checks);
            } catch (IllegalStateException completing) {
                return null;
            }
            registry.putResource(this, checks);
        }
        return checks;
    }

    @Override
    public String toString() {
        return "JTA transactions through the resource adapter (" + core + ")";
    }

    /** The core's view of the transaction, with the rollback-only mark deferred to {@link Checks}. */
    private record Guarded(CallerTransaction transaction, Checks checks) implements CallerTransaction {

        @Override
        public Object key() {
            return transaction.key();
        }

        @Override
        public void onCompletion(Runnable beforeCompletion, Consumer<Boolean> afterCompletion) {
            transaction.onCompletion(beforeCompletion, afterCompletion);
        }

        @Override
        public void setRollbackOnly() {
            if (!checks.markLost()) {
                transaction.setRollbackOnly();
            }
        }
    }

    /** The checks of one transaction: the locks taken in it through connections, and losses the core reported. */
    private final class Checks implements Synchronization {
        private final List<AdapterLockHandle> watched = new ArrayList<>();
        private final Set<String> lostNames = new LinkedHashSet<>();
        private boolean lostReported;
        private boolean checked;

        synchronized void watch(AdapterLockHandle handle) {
            watched.add(handle);
            handle.onLost(() -> lost(handle.name()));
        }

        private synchronized void lost(String name) {
            lostNames.add(name);
        }

        /** @return true if the check is still to come, and will fail the commit */
        synchronized boolean markLost() {
            lostReported = true;
            return !checked;
        }

        @Override
        public void beforeCompletion() {
            String failure;
            synchronized (this) {
                checked = true;
                Set<String> lost = new LinkedHashSet<>(lostNames);
                for (AdapterLockHandle handle : watched) {
                    if (handle.lostWhileHeld()) {
                        lost.add(handle.name());
                    }
                }
                if (lost.isEmpty() && !lostReported) {
                    return;
                }
                failure = lost.isEmpty() ? "a lock taken in this transaction was lost before it completed"
                        : (lost.size() == 1 ? "lock '" + lost.iterator().next() + "' was" : "locks " + lost + " were")
                        + " lost before the transaction completed";
            }
            try {
                registry.setRollbackOnly();
            } catch (IllegalStateException alreadyEnding) {
                // the exception below rolls it back all the same
            }
            throw new LockException(failure + ": it rolls back, since other holders may have overlapped its work");
        }

        @Override
        public void afterCompletion(int status) {
            synchronized (this) {
                watched.clear();
            }
        }
    }
}
