package io.txlock.spring;

import io.txlock.LockHealth;
import io.txlock.LockManager;
import io.txlock.spi.LockProvider;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * The {@code txlock} component of Actuator's health, from {@link LockManager#health()}: UP when the lock backend
 * answers a read of the lock table (or key space), DOWN with the backend's error when it does not. Details: the
 * provider, the manager's instance id (part of every owner id this application writes), the locks it holds and the
 * callers waiting now, renewal failures and locks lost since it started.
 */
public class TxlockHealthIndicator extends AbstractHealthIndicator {

    private final LockManager locks;
    private final LockProvider provider;

    /**
     * @param locks the manager whose backend is probed
     * @param provider its provider, described in the details
     */
    public TxlockHealthIndicator(LockManager locks, LockProvider provider) {
        super("txlock health check failed");
        this.locks = locks;
        this.provider = provider;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        LockHealth health = locks.health();
        (health.isUp() ? builder.up() : builder.down().withDetail("error", health.problem()))
                .withDetail("provider", provider.describe()).withDetail("instanceId", locks.instanceId())
                .withDetail("held", health.held()).withDetail("waiting", health.waiting())
                .withDetail("renewalFailures", health.renewalFailures()).withDetail("lost", health.lost());
    }
}
