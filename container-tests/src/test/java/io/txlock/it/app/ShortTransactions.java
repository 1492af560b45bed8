package io.txlock.it.app;

import io.txlock.LockManager;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.transaction.RollbackException;
import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import jakarta.transaction.UserTransaction;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Bean-managed transactions with a timeout, set portably through {@link UserTransaction}. */
@Stateless
@TransactionManagement(TransactionManagementType.BEAN)
public class ShortTransactions {

    @Resource
    UserTransaction transaction;

    /**
     * Takes a lock in a transaction that times out after 2 s, keeps the thread until released, then tries to
     * commit.
     *
     * @return how the transaction ended: "rolled back" when it timed out
     */
    public String lockAndOutliveTheTransaction(LockManager locks, String name, CountDownLatch locked, CountDownLatch release)
            throws Exception {
        transaction.setTransactionTimeout(2);
        transaction.begin();
        try {
            locks.acquire(name);
            locked.countDown();
            if (!release.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not released within 60 s");
            }
            transaction.commit();
            return "committed";
        } catch (RollbackException e) {
            return "rolled back";
        } finally {
            transaction.setTransactionTimeout(0);
        }
    }

    /**
     * Calls {@code work} in a transaction that times out after 2 s, then tries to commit.
     *
     * @return what {@code work} returned, a comma, and how the transaction ended: "rolled back" when it timed out
     */
    public String callInATransactionThatTimesOut(Callable<String> work) throws Exception {
        transaction.setTransactionTimeout(2);
        transaction.begin();
        try {
            String result;
            try {
                result = work.call();
            } catch (Exception | Error e) {
                rollbackIfStillAssociated();
                throw e;
            }
            try {
                transaction.commit();
                return result + ", committed";
            } catch (RollbackException e) {
                return result + ", rolled back";
            }
        } finally {
            transaction.setTransactionTimeout(0);
        }
    }

    private void rollbackIfStillAssociated() throws SystemException {
        if (transaction.getStatus() != Status.STATUS_NO_TRANSACTION) {
            try {
                transaction.rollback();
            } catch (IllegalStateException alreadyRolledBack) {
                // the timeout rolled it back already
            }
        }
    }
}
