package io.txlock.modulepath;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.jdbc.JdbcDialect;
import io.txlock.jdbc.JdbcLockProvider;
import io.txlock.jdbc.JdbcLockSchema;
import org.h2.jdbcx.JdbcDataSource;

/**
 * The child of {@link ModulePathTest}: on the class path, using txlock from the module path. Creates the lock table
 * from txlock-sql's DDL and locks on H2; prints "OK", the module txlock's classes are in, and the token.
 */
public final class ModulePathMain {

    private ModulePathMain() {
    }

    /**
     * @param args none
     */
    public static void main(String[] args) {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:modulepath;DB_CLOSE_DELAY=-1");
        JdbcLockSchema.create(h2, JdbcDialect.H2, "method_lock");
        try (LockManager locks = LockManager.builder(JdbcLockProvider.builder(h2).build()).build();
                LockHandle held = locks.acquire("order:1")) {
            System.out.println("OK " + LockManager.class.getModule().getName() + " " + held.fencingToken());
        }
    }
}
