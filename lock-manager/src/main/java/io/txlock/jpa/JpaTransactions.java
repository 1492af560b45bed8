package io.txlock.jpa;

import io.txlock.jdbc.LocalTransactions;
import io.txlock.spi.CallerTransaction;
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
    private final LocalTransactions<EntityManager> transactions = new LocalTransactions<>(this::open);

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
        return transactions.currentResource();
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
        return transactions.inTransaction(work::run);
    }

    private LocalTransactions.Resource<EntityManager> open() {
        return new OnEntityManager(factory.createEntityManager());
    }

    @Override
    public Optional<CallerTransaction> current() {
        return transactions.current();
    }

    @Override
    public String toString() {
        return "resource-local JPA transactions over " + factory;
    }

    /** A transaction of an entity manager, flushed before the locks are freed. */
    private record OnEntityManager(EntityManager view) implements LocalTransactions.Resource<EntityManager> {

        @Override
        public void begin() {
            view.getTransaction().begin();
        }

        @Override
        public boolean rollbackOnly() {
            return view.getTransaction().getRollbackOnly();
        }

        @Override
        public Exception rolledBack(String message) {
            return new RollbackException(message);
        }

        @Override
        public void flush() {
            view.flush();
        }

        @Override
        public void end(boolean commit) {
            EntityTransaction transaction = view.getTransaction();
            if (commit) {
                transaction.commit();
            } else if (transaction.isActive()) {
                transaction.rollback();
            }
        }

        @Override
        public void close() {
            view.close();
        }
    }
}
