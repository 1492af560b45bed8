package io.txlock.spring;

import io.txlock.LockNotHeldException;
import io.txlock.spi.CallerTransaction;
import io.txlock.spi.TransactionSupport;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
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

    /** One Spring transaction as the core sees it: bound to the thread while the transaction is. */
    private static final class SpringTransaction implements CallerTransaction {
        private final SpringTransactionSupport support;
        private final long id;
        private final String name;
        private volatile String rollbackReason;

        SpringTransaction(SpringTransactionSupport support, long id, String name) {
            this.support = support;
            this.id = id;
            this.name = name;
        }

        @Override
        public Object key() {
            return this;
        }

        @Override
        public void onCompletion(Runnable beforeCompletion, Consumer<Boolean> afterCompletion) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void beforeCommit(boolean readOnly) {
                    beforeCompletion.run();
                    refuseCommitIfMarked();
                }

                @Override
                public void afterCompletion(int status) {
                    afterCompletion.accept(status == STATUS_COMMITTED);
                }
            });
        }

        /**
         * May come from any thread (a lock lost on a backend thread). Spring has no thread-safe rollback-only flag
         * for the transaction as a whole, so the commit checks this one: throwing from {@code beforeCommit} rolls
         * the transaction back and fails the commit.
         */
        @Override
        public void setRollbackOnly() {
            rollbackReason = "a lock this transaction relied on was lost (see the log), so it was rolled back";
        }

        void refuseCommitIfMarked() {
            String reason = rollbackReason;
            if (reason != null) {
                // not a TransactionException: Spring rolls back on any other exception from beforeCommit
                throw new LockNotHeldException("transaction " + this + ": " + reason);
            }
        }

        /** Unbinds this transaction when Spring suspends it or it ends, and refuses its commit if marked. */
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
                    refuseCommitIfMarked();
                }

                @Override
                public void afterCompletion(int status) {
                    TransactionSynchronizationManager.unbindResourceIfPossible(support);
                }
            };
        }

        @Override
        public String toString() {
            return "spring-tx-" + id + (name != null ? "[" + name + "]" : "");
        }
    }
}
