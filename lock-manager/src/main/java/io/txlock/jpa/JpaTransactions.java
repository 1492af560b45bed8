package io.txlock.jpa;

import io.txlock.spi.CallerTransaction;
import io.txlock.spi.LocalTransaction;
import io.txlock.spi.TransactionSupport;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.EntityTransaction;
import jakarta.persistence.RollbackException;
import java.util.Optional;

/**
 * Resource-local JPA transactions for applications without JTA: {@link io.txlock.LockScope#TRANSACTION}-scoped
 * locks that commit and roll back with the caller's own {@link EntityManager} and the entities it writes.
 *
 * <pre>{@code
 * JpaTransactions tx = JpaTransactions.over(entityManagerFactory);   // a RESOURCE_LOCAL persistence unit
 * LockManager locks = LockManager.builder(JpaLockProvider.builder(tx).build())
 *         .transactions(tx).build();
 * tx.inTransaction(em -> {
 *     locks.acquire("order:42");      // AUTO scope: held until this transaction ends
 *     em.persist(order);              // same EntityManager, same transaction as the lock
 *     return null;
 * });                                 // commit (or rollback on an exception) frees the lock
 * }</pre>
 *
 * <p>Transactions do not nest: an inner {@code inTransaction} joins the outer one.
 */
public final class JpaTransactions implements TransactionSupport {

    /** Work in a transaction. */
    @FunctionalInterface
    public interface Work<T> {
        /**
         * @param entityManager the transaction's entity manager; do not commit, roll back or close it
         * @return a result
         * @throws Exception anything: the transaction then rolls back and the exception propagates
         */
        T run(EntityManager entityManager) throws Exception;
    }

    private final EntityManagerFactory factory;
    private final ThreadLocal<Local> current = new ThreadLocal<>();

    private JpaTransactions(EntityManagerFactory factory) {
        this.factory = factory;
    }

    /**
     * @param factory a RESOURCE_LOCAL entity manager factory
     * @return transactions over it
     */
    public static JpaTransactions over(EntityManagerFactory factory) {
        if (factory == null) {
            throw new IllegalArgumentException("factory must not be null");
        }
        return new JpaTransactions(factory);
    }

    /** @return the entity manager factory */
    public EntityManagerFactory factory() {
        return factory;
    }

    /** @return the calling thread's transaction's entity manager, or null outside {@link #inTransaction} */
    public EntityManager currentEntityManager() {
        Local tx = current.get();
        return tx == null ? null : tx.entityManager;
    }

    /**
     * Runs {@code work} in a transaction of a new entity manager: flushes, frees the locks taken in it, and commits
     * if it returns; rolls back if it throws. The entity manager is closed afterwards.
     *
     * @param work what to do
     * @param <T> the result type
     * @return what {@code work} returned
     * @throws RollbackException if the transaction was marked rollback-only, or the commit failed; it was rolled back
     * @throws Exception what {@code work} threw, after the rollback
     */
    public <T> T inTransaction(Work<T> work) throws Exception {
        Local outer = current.get();
        if (outer != null) {
            return work.run(outer.entityManager);
        }
        EntityManager em = factory.createEntityManager();
        Local tx = new Local(em);
        boolean committed = false;
        try {
            EntityTransaction transaction = em.getTransaction();
            transaction.begin();
            current.set(tx);
            try {
                T result = work.run(em);
                if (tx.isRollbackOnly() || transaction.getRollbackOnly()) {
                    throw new RollbackException("the transaction was marked rollback-only"
                            + (tx.isRollbackOnly() ? " (a lock it relied on was lost)" : "") + "; rolled back");
                }
                em.flush();
                tx.beforeCompletion();
                transaction.commit();
                committed = true;
                return result;
            } catch (Exception | Error e) {
                if (transaction.isActive()) {
                    try {
                        transaction.rollback();
                    } catch (RuntimeException rollbackFailed) {
                        e.addSuppressed(rollbackFailed);
                    }
                }
                throw e;
            }
        } finally {
            current.remove();
            try {
                tx.afterCompletion(committed);
            } finally {
                em.close();
            }
        }
    }

    @Override
    public Optional<CallerTransaction> current() {
        return Optional.ofNullable(current.get());
    }

    @Override
    public String toString() {
        return "resource-local JPA transactions over " + factory;
    }

    private static final class Local extends LocalTransaction {
        final EntityManager entityManager;

        Local(EntityManager entityManager) {
            this.entityManager = entityManager;
        }
    }
}
