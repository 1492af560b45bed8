package io.txlock.it.adapterapp;

import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.adapter.LockConnection;
import io.txlock.adapter.LockConnectionFactory;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.resource.ResourceException;
import java.time.Duration;

/**
 * Takes locks when the application starts and never releases them: the adapter's stop must. A row lock through
 * {@code java:/txlock/locks}, and two lease rows through {@code java:/txlock/leases}: one renewed every second or so,
 * one with a lease of 5 minutes.
 */
@Singleton
@Startup
public class LockHolder {

    /** SELECT_FOR_UPDATE, in the application's datasource. */
    public static final String ROW_LOCK = "row-held-at-undeploy";
    /** OPTIMISTIC_VERSION, a lease of 2 s, renewed. */
    public static final String RENEWED = "renewed-until-undeploy";
    /** OPTIMISTIC_VERSION, a lease of 5 min: only a release frees it soon. */
    public static final String LONG_LEASE = "held-at-undeploy";

    @Resource(lookup = "java:/txlock/locks")
    LockConnectionFactory locks;

    @Resource(lookup = "java:/txlock/leases")
    LockConnectionFactory leases;

    @PostConstruct
    void hold() {
        LockOptions lease = LockOptions.defaults().withScope(LockScope.LEASE);
        try (LockConnection rows = locks.getConnection(); LockConnection leased = leases.getConnection()) {
            rows.acquire(ROW_LOCK, lease);
            leased.acquire(RENEWED, lease.withLease(Duration.ofSeconds(2)));
            leased.acquire(LONG_LEASE, lease.withLease(Duration.ofMinutes(5)));
        } catch (ResourceException e) {
            throw new IllegalStateException(e);
        }
    }
}
