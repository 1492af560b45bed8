package io.txlock.spring;

import io.txlock.LockManager;
import io.txlock.spi.LockProvider;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * The {@code txlock} component of Actuator's health: UP when the lock backend answers a read of the lock table (or
 * key space), DOWN with the backend's error when it does not. Details: the provider and the manager's instance id
 * (part of every owner id this application writes).
 */
public class TxlockHealthIndicator extends AbstractHealthIndicator {

    /** The lock name the probe inspects; nobody needs to hold it. */
    public static final String PROBE = "txlock:health-probe";

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
        locks.inspect(PROBE);
        builder.up().withDetail("provider", provider.describe()).withDetail("instanceId", locks.instanceId());
    }
}
