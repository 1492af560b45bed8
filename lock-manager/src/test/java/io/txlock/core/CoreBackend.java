package io.txlock.core;

import io.txlock.Strategy;
import io.txlock.jdbc.JdbcLockProvider;
import io.txlock.spi.LockProvider;
import io.txlock.testkit.FileLockProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;
import javax.sql.DataSource;

/** The real providers the core's own tests run on: a lock table in H2, and the testkit's lock files. */
enum CoreBackend {
    H2_OPTIMISTIC_VERSION("jdbc"), LOCK_FILES("file");

    /** The provider kind the metrics name it by. */
    final String kind;

    CoreBackend(String kind) {
        this.kind = kind;
    }

    /**
     * @param h2 a database with the lock table {@code method_lock}
     * @param dir the lock files' folder
     * @return new providers of this backend, one per node, all over the same locks
     */
    Supplier<LockProvider> providers(DataSource h2, Path dir) {
        return switch (this) {
            case H2_OPTIMISTIC_VERSION -> () -> JdbcLockProvider.builder(h2).strategy(Strategy.OPTIMISTIC_VERSION)
                    .reaperPeriod(Duration.ZERO).build();
            case LOCK_FILES -> () -> new FileLockProvider(dir);
        };
    }
}
