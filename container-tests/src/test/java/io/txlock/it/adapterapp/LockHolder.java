package io.txlock.it.adapterapp;

import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.adapter.LockConnection;
import io.txlock.adapter.LockConnectionFactory;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.resource.ResourceException;
import java.time.Duration;

/**
 * Takes two locks (OPTIMISTIC_VERSION rows with leases) when the application starts and never releases them: the
 * adapter's stop must.
 */
@Singleton
@Startup
@DependsOn("AdapterSchema")
public class LockHolder {

    /** A lock with a lease of 2 s, renewed. */
    public static final String RENEWED = "renewed-until-undeploy";
    /** A lock with a lease of 5 min: only a release frees it soon. */
    public static final String LONG_LEASE = "held-at-undeploy";

    @Resource(lookup = "java:/txlock/leases")
    LockConnectionFactory locks;

    @PostConstruct
    void hold() {
        try (LockConnection connection = locks.getConnection()) {
            connection.acquire(RENEWED, LockOptions.defaults().withScope(LockScope.LEASE).withLease(Duration.ofSeconds(2)));
            connection.acquire(LONG_LEASE, LockOptions.defaults().withScope(LockScope.LEASE)
                    .withLease(Duration.ofMinutes(5)));
        } catch (ResourceException e) {
            throw new IllegalStateException(e);
        }
    }
}
