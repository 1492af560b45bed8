package io.txlock.spring;

import io.txlock.LockNotHeldException;
import io.txlock.spi.CallerTransaction;
import io.txlock.spi.LocalTransaction;
import io.txlock.spi.TransactionSupport;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Finds the caller's Spring-managed transaction ({@code @Transactional}, {@code TransactionTemplate}, any
 * {@code PlatformTransactionManager} with synchronization on: JDBC, JPA, JTA) through
 * {@link TransactionSynchronizationManager}, so that locks in {@link io.txlock.LockScope#TRANSACTION TRANSACTION}
 * scope, and {@link io.txlock.LockScope#AUTO AUTO} locks taken in a transaction, end when it commits or rolls
 * back. The auto-configuration gives it to the {@link io.txlock.LockManager}; by hand:
 *
 * <pre>{@code
 * LockManager locks = LockManager.builder(provider).transactions(new SpringTransactionSupport()).build();
 * }</pre>
 *
 * <p>A suspended transaction ({@code REQUIRES_NEW}, {@code NOT_SUPPORTED}) is not the current one: a lock taken in
 * the inner transaction ends with the inner one. A lock lost while its transaction runs makes the commit fail:
 * the transaction rolls back and {@code commit} throws {@link LockNotHeldException}.
 */
public final class SpringTransactionSupport implements TransactionSupport {

    private static final AtomicLong SEQUENCE = new AtomicLong();

    /** Creates the support; every instance finds the same transactions, each keeps its own per-transaction state. */
    public SpringTransactionSupport() {
    }

    @Override
    public Optional<CallerTransaction> current() {
        if (!TransactionSynchronizationManager.isSynchronizationActive()
                || !TransactionSynchronizationManager.isActualTransactionActive()) {
            return Optional.empty();
        }
        SpringTransaction tx = (SpringTransaction) TransactionSynchronizationManager.getResource(this);
        if (tx == null) {
            tx = new SpringTransaction(this, SEQUENCE.incrementAndGet(), TransactionSynchronizationManager.getCurrentTransactionName());
            TransactionSynchronizationManager.bindResource(this, tx);
            TransactionSynchronizationManager.registerSynchronization(tx.binding());
        }
        return Optional.of(tx);
    }

    @Override
    public String toString() {
        return "Spring transaction support (TransactionSynchronizationManager)";
    }

    /**
     * One Spring transaction as the core sees it: bound to the thread while the transaction is, with one Spring
     * synchronization that runs what the core registered (from any thread) when the transaction ends.
     */
    private static final class SpringTransaction extends LocalTransaction {
        private final SpringTransactionSupport support;
        private final long id;
        private final String name;

        SpringTransaction(SpringTransactionSupport support, long id, String name) {
            this.support = support;
            this.id = id;
            this.name = name;
        }

        /**
         * Unbinds this transaction when Spring suspends it or it ends. A lock lost while it ran marked it
         * rollback-only (from any thread: Spring has no thread-safe rollback-only flag for the transaction as a
         * whole), and its commit then fails: an exception from {@code beforeCommit} that is not a Spring
         * {@code TransactionException} makes Spring roll back.
         */
        TransactionSynchronization binding() {
            return new TransactionSynchronization() {
                @Override
                public void suspend() {
                    TransactionSynchronizationManager.unbindResourceIfPossible(support);
                }

                @Override
                public void resume() {
                    TransactionSynchronizationManager.bindResource(support, SpringTransaction.this);
                }

                @Override
                public void beforeCommit(boolean readOnly) {
                    beforeCompletion();
                    if (isRollbackOnly()) {
                        throw new LockNotHeldException("transaction " + SpringTransaction.this + ": a lock this transaction"
                                + " relied on was lost (see the log), so it was rolled back");
                    }
                }

                @Override
                public void afterCompletion(int status) {
                    TransactionSynchronizationManager.unbindResourceIfPossible(support);
                    SpringTransaction.this.afterCompletion(status == STATUS_COMMITTED);
                }
            };
        }

        @Override
        public String toString() {
            return "spring-tx-" + id + (name != null ? "[" + name + "]" : "");
        }
    }
}
