package io.txlock.jpa;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A business entity written under a lock, in the same transaction. */
@Entity
@Table(name = "orders")
public class PlacedOrder {

    @Id
    @Column(name = "order_no", length = 64)
    private String orderNo;

    @Column(name = "lock_token", nullable = false)
    private long lockToken;

    protected PlacedOrder() {
    }

    PlacedOrder(String orderNo, long lockToken) {
        this.orderNo = orderNo;
        this.lockToken = lockToken;
    }

    long lockToken() {
        return lockToken;
    }
}
