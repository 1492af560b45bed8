package io.txlock.it.app;

import io.txlock.LockManager;
import io.txlock.cdi.Locked;
import io.txlock.jdbc.JdbcClaims;
import jakarta.ejb.ApplicationException;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;

/** The seeds' case: order submissions that must store each order once, however often it is submitted. */
@Stateless
public class Submissions {

    @Inject
    JdbcClaims claims;

    @Inject
    Orders orders;

    /**
     * Claims the order number in this transaction and stores the order; fails after storing if declined.
     *
     * @return true if stored, false if a duplicate of a stored order
     */
    public boolean submit(String orderNo, boolean declined) {
        if (!claims.claim("order-submitted:" + orderNo)) {
            return false;
        }
        orders.insert(orderNo, 0);
        if (declined) {
            throw new PaymentDeclined();
        }
        return true;
    }

    /**
     * The lock variant: lock the order number for this transaction (with the application's manager), then look
     * for the order; fails after storing if declined.
     *
     * @return true if stored, false if a duplicate of a stored order
     */
    @Locked("order:{orderNo}")
    public boolean submitUnderLock(String orderNo, boolean declined) {
        return storeOnce(orderNo, declined);
    }

    /**
     * The lock variant on another node of the cluster: the same lock, taken explicitly on {@code node}.
     *
     * @return true if stored, false if a duplicate of a stored order
     */
    public boolean submitUnderLock(LockManager node, String orderNo, boolean declined) {
        node.acquire("order:" + orderNo);
        return storeOnce(orderNo, declined);
    }

    private boolean storeOnce(String orderNo, boolean declined) {
        if (orders.count(orderNo) > 0) {
            return false;
        }
        orders.insert(orderNo, 0);
        if (declined) {
            throw new PaymentDeclined();
        }
        return true;
    }

    /** The payment was declined: the submission rolls back. */
    @ApplicationException(rollback = true)
    public static class PaymentDeclined extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public PaymentDeclined() {
            super("payment declined");
        }
    }
}
