package io.txlock.core;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.jdbc.JdbcDialect;
import io.txlock.jdbc.JdbcLockProvider;
import io.txlock.jdbc.JdbcLockSchema;
import io.txlock.spi.LockProvider;
import io.txlock.testkit.FileLockProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.h2.jdbcx.JdbcDataSource;

/**
 * The child JVM of {@link WithoutMicrometerTest}, started with a class path that has no Micrometer: proves that it is
 * absent, then builds managers over H2 and over the kit's lock files and locks through every entry point. Prints
 * {@code OK} and exits 0, or exits 1 with the failure on stderr.
 */
public final class WithoutMicrometerMain {

    private WithoutMicrometerMain() {
    }

    /**
     * @param args the directory for the lock files
     */
    public static void main(String[] args) {
        try {
            run(Path.of(args[0]));
        } catch (Throwable e) {
            e.printStackTrace();
            System.exit(1);
        }
        System.out.println("OK");
        System.exit(0);
    }

    private static void run(Path dir) throws Exception {
        try {
            Class.forName("io.micrometer.core.instrument.MeterRegistry");
            throw new AssertionError("Micrometer is on this JVM's class path: the test proves nothing");
        } catch (ClassNotFoundException expected) {
            // as it should be
        }
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:no_micrometer;DB_CLOSE_DELAY=-1");
        h2.setUser("sa");
        JdbcLockSchema.create(h2, JdbcDialect.H2, "method_lock");
        exercise(JdbcLockProvider.builder(h2).strategy(Strategy.OPTIMISTIC_VERSION).reaperPeriod(Duration.ZERO).build());
        exercise(new FileLockProvider(dir));
    }

    private static void exercise(LockProvider provider) throws Exception {
        LockOptions options = LockOptions.defaults().withScope(LockScope.LEASE).withWait(Duration.ofSeconds(30))
                .withLease(Duration.ofMillis(600));
        try (LockManager locks = LockManager.builder(provider).defaults(options).ownerHost("child").build()) {
            try (LockHandle held = locks.acquire("no-micrometer")) {
                try (LockHandle again = locks.acquire("no-micrometer")) {
                    check(again.holdCount() == 2, "reentry");
                }
                held.extend(Duration.ofSeconds(5));
                check(held.isValid(), "valid after extend");
                check(locks.inspect("no-micrometer").isPresent(), "inspect while held");
            }
            check(locks.inspect("no-micrometer").isEmpty(), "free after release");
            locks.tryAcquire("no-micrometer").orElseThrow().release();
            locks.acquireAsync("no-micrometer").toCompletableFuture().get(30, TimeUnit.SECONDS).release();
            Lock view = locks.asLock("no-micrometer");
            check(view.tryLock(), "tryLock of the j.u.c view");
            view.unlock();
        }
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }
}
