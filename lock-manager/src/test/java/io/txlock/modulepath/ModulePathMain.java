package io.txlock.modulepath;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.jdbc.JdbcDialect;
import io.txlock.jdbc.JdbcLockProvider;
import io.txlock.jdbc.JdbcLockSchema;
import org.h2.jdbcx.JdbcDataSource;

/**
 * The child of {@link ModulePathTest}: on the class path, using txlock from the module path. Creates the lock table
 * from txlock-sql's DDL and locks on H2; prints "OK", the module txlock's classes are in, the token, and whether
 * the core is exported to this program.
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
            Module txlock = LockManager.class.getModule();
            System.out.println("OK " + txlock.getName() + " " + held.fencingToken() + " core exported: "
                    + txlock.isExported("io.txlock.core"));
        }
    }
}
