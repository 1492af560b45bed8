package io.txlock.jdbc;

import io.txlock.spi.CallerTransaction;
import io.txlock.spi.LocalTransaction;
import java.util.Optional;

/**
 * The algorithm of local transactions without JTA, written once for {@link JdbcTransactions} (a connection) and
 * {@code JpaTransactions} (a resource-local entity manager) over a {@link Resource}: one transaction per thread at a
 * time, which an inner call joins; the locks registered with it ({@link LocalTransaction}) are freed just before it
 * commits and told how it ended.
 *
 * <p><b>Internal to txlock.</b> Not an API: it may change in any release.
 *
 * @param <R> what the caller's work runs on: a connection, an entity manager
 */
public final class LocalTransactions<R> {

    /**
     * A transaction's resource: what the two kinds of local transactions do differently.
     *
     * @param <R> what the caller's work runs on
     */
    public interface Resource<R> {

        /** @return what the caller's work runs on, in the transaction */
        R view();

        /**
         * Begins the transaction.
         *
         * @throws Exception if it failed
         */
        void begin() throws Exception;

        /** @return whether the resource itself marked the transaction rollback-only */
        boolean rollbackOnly();

        /**
         * @param message why the transaction was rolled back instead of committed
         * @return the exception {@code inTransaction} throws then
         */
        Exception rolledBack(String message);

        /**
         * Writes what the work left pending, before the locks are freed.
         *
         * @throws Exception if it failed
         */
        void flush() throws Exception;

        /**
         * Ends the transaction.
         *
         * @param commit whether to commit it, else to roll it back if it is still active
         * @throws Exception if it failed
         */
        void end(boolean commit) throws Exception;

        /**
         * Gives the resource back once the transaction ended.
         *
         * @throws Exception if it failed
         */
        void close() throws Exception;
    }

    /**
     * Work in a transaction.
     *
     * @param <R> what it runs on
     * @param <T> its result
     */
    @FunctionalInterface
    public interface Work<R, T> {
        /**
         * @param resource what it runs on
         * @return its result
         * @throws Exception anything: the transaction then rolls back
         */
        T run(R resource) throws Exception;
    }

    /**
     * Opens resources.
     *
     * @param <R> what the caller's work runs on
     */
    @FunctionalInterface
    public interface Resources<R> {
        /**
         * @return a new resource, its transaction not yet begun
         * @throws Exception if it could not be opened
         */
        Resource<R> open() throws Exception;
    }

    private final Resources<R> resources;
    private final ThreadLocal<Local<R>> current = new ThreadLocal<>();

    /** @param resources opens a resource for each transaction */
    public LocalTransactions(Resources<R> resources) {
        this.resources = resources;
    }

    /**
     * Runs {@code work} in a transaction, or in the calling thread's transaction if it has one: commits if it
     * returns, after the locks registered with it were freed; rolls back if it throws.
     *
     * @param work what to do
     * @param <T> the result type
     * @return what {@code work} returned
     * @throws Exception what {@code work} threw, after the rollback; {@link Resource#rolledBack} if the transaction
     *     was marked rollback-only; what the resource threw if it could not be opened, begun or committed
     */
    public <T> T inTransaction(Work<R, T> work) throws Exception {
        Local<R> outer = current.get();
        if (outer != null) {
            return work.run(outer.resource.view());
        }
        Resource<R> resource = resources.open();
        Local<R> tx = new Local<>(resource);
        boolean committed = false;
        try {
            try {
                resource.begin();
                current.set(tx);
                T result = work.run(resource.view());
                if (tx.isRollbackOnly() || resource.rollbackOnly()) {
                    throw resource.rolledBack("the transaction was marked rollback-only"
                            + (tx.isRollbackOnly() ? " (a lock it relied on was lost)" : "") + "; rolled back");
                }
                resource.flush();
                tx.beforeCompletion();
                resource.end(true);
                committed = true;
                return result;
            } catch (Exception | Error e) {
                try {
                    resource.end(false);
                } catch (Exception rollbackFailed) {
                    e.addSuppressed(rollbackFailed);
                }
                throw e;
            }
        } finally {
            current.remove();
            try {
                tx.afterCompletion(committed);
            } finally {
                resource.close();
            }
        }
    }

    /** @return the calling thread's transaction, if it is in one */
    public Optional<CallerTransaction> current() {
        return Optional.ofNullable(current.get());
    }

    /** @return what the calling thread's transaction runs on, or null outside one */
    public R currentResource() {
        Local<R> tx = current.get();
        return tx == null ? null : tx.resource.view();
    }

    private static final class Local<R> extends LocalTransaction {
        final Resource<R> resource;

        Local(Resource<R> resource) {
            this.resource = resource;
        }
    }
}
