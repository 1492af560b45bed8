package io.txlock.it.app;

import io.txlock.LockManager;
import io.txlock.jdbc.JdbcClaims;
import io.txlock.jdbc.JdbcLockProvider;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import javax.sql.DataSource;

/**
 * The application's txlock configuration, as the Jakarta EE quick start shows it: a producer of the
 * {@link LockManager} bean over the application's JTA datasource (plus a non-JTA one on the same database for
 * LEASE locks inside transactions), closed with the application, and the idempotency claims.
 */
@ApplicationScoped
public class Locks {

    @Resource(lookup = "java:app/jdbc/txlock")
    DataSource dataSource;

    @Resource(lookup = "java:app/jdbc/txlock-nonjta")
    DataSource nonJtaDataSource;

    @Produces
    @ApplicationScoped
    LockManager lockManager() {
        return LockManager.builder(JdbcLockProvider.builder(dataSource).leaseDataSource(nonJtaDataSource).build()).build();
    }

    void close(@Disposes LockManager locks) {
        locks.close();
    }

    /** JdbcClaims is a final class: a pseudo-scoped (no client proxy) singleton bean. */
    @Produces
    @Singleton
    JdbcClaims claims() {
        return JdbcClaims.builder(dataSource).build();
    }
}
