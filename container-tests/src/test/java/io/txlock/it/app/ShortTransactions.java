package io.txlock.it.app;

import io.txlock.Strategy;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.inject.Inject;
import jakarta.transaction.RollbackException;
import jakarta.transaction.UserTransaction;
import java.util.concurrent.CountDownLatch;

/** Bean-managed transactions with a timeout, set portably through {@link UserTransaction}. */
@Stateless
@TransactionManagement(TransactionManagementType.BEAN)
public class ShortTransactions {

    @Resource
    UserTransaction transaction;

    @Inject
    Strategies strategies;

    /**
     * Takes a lock in a transaction that times out after 2 s, keeps the thread until released, then tries to
     * commit.
     *
     * @return how the transaction ended: "rolled back" when it timed out
     */
    public String lockAndOutliveTheTransaction(Strategy strategy, String name, CountDownLatch locked, CountDownLatch release)
            throws Exception {
        transaction.setTransactionTimeout(2);
        transaction.begin();
        try {
            strategies.get(strategy).acquire(name);
            locked.countDown();
            OrderService.await(release);
            transaction.commit();
            return "committed";
        } catch (RollbackException e) {
            return "rolled back";
        } finally {
            transaction.setTransactionTimeout(0);
        }
    }
}
