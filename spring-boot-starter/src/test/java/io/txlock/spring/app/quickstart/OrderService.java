package io.txlock.spring.app.quickstart;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.cdi.Locked;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

@Service
public class OrderService {

    private final LockManager locks;   // auto-configured over the application's DataSource
    private final JdbcTemplate jdbc;

    public OrderService(LockManager locks, JdbcTemplate jdbc) {
        this.locks = locks;
        this.jdbc = jdbc;
    }

    @Transactional
    public void ship(long orderId) {
        LockHandle lock = locks.acquire("order:" + orderId);   // held until this transaction commits or rolls back
        jdbc.update("UPDATE orders SET state = 'SHIPPED', fence = ? WHERE id = ?", lock.fencingToken(), orderId);
    }

    @Locked(value = "invoicing:{customerId}", waitTime = "0")  // declared: one run per customer at a time, cluster-wide
    public int invoice(long customerId) {
        return jdbc.update("UPDATE orders SET state = 'INVOICED' WHERE customer_id = ? AND state = 'SHIPPED'", customerId);
    }
}
