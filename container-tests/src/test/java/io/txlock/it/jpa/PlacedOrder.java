package io.txlock.it.jpa;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.util.UUID;

/** An order the application stores with JPA, under the lock's fencing token. */
@Entity
@Table(name = "placed_order")
public class PlacedOrder {

    @Id
    private String id;

    @Column(name = "order_no", nullable = false)
    private String orderNo;

    @Column(name = "lock_token", nullable = false)
    private long lockToken;

    /** For JPA. */
    protected PlacedOrder() {
    }

    /**
     * @param orderNo the order number
     * @param lockToken the fencing token of the lock it was written under
     */
    public PlacedOrder(String orderNo, long lockToken) {
        this.id = UUID.randomUUID().toString();
        this.orderNo = orderNo;
        this.lockToken = lockToken;
    }

    /** @return the fencing token of the lock it was written under */
    public long getLockToken() {
        return lockToken;
    }
}
