package io.txlock.bench;

import io.txlock.LockTimeoutException;
import io.txlock.jdbc.JdbcDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * ShedLock's JDBC provider ({@code JdbcTemplateLockProvider}) on the backend's database, in the table its
 * documentation gives, with the database's clock ({@code usingDbTime()}, which the documentation recommends). Each
 * node is one provider, with its own {@code lockedBy}. ShedLock has no blocking wait: a lock held by another node
 * is skipped, so a worker tries again after {@link Peer#RETRY}, the floor's retry, until the run's wait is over.
 */
final class ShedLockPeer implements Peer {

    static final String NAME = "ShedLock";
    private static final String TABLE = "shedlock";

    private final DataSource pool;
    private final JdbcDialect dialect;
    private boolean tableCreated;

    ShedLockPeer(DataSource pool, JdbcDialect dialect) {
        this.pool = pool;
        this.dialect = dialect;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String describe() {
        return "ShedLock JdbcTemplateLockProvider, usingDbTime(): INSERT or UPDATE … WHERE lock_until <= now + UPDATE"
                + " lock_until = now, each in its own transaction; skipped when held, so retried after 1 ms";
    }

    private synchronized void createTable() throws SQLException {
        if (tableCreated) {
            return;
        }
        String time = dialect == JdbcDialect.MYSQL || dialect == JdbcDialect.MARIADB ? "TIMESTAMP(3)" : "TIMESTAMP";
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + TABLE + " (name VARCHAR(64) NOT NULL, lock_until " + time + " NOT NULL, locked_at " + time
                    + " NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
        }
        tableCreated = true;
    }

    @Override
    public Nodes open(int nodes, LockWorkload workload) throws SQLException {
        createTable();
        List<JdbcTemplateLockProvider> providers = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            providers.add(new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                    .withJdbcTemplate(new JdbcTemplate(pool)).withTableName(TABLE).withLockedByValue("node-" + i).usingDbTime()
                    .build()));
        }
        return new Nodes() {
            @Override
            public Locker locker(int worker) {
                return new RetryingLocker(providers.get(worker % providers.size()), workload);
            }

            @Override
            public void close() {
                // providers hold no resources of their own
            }
        };
    }

    /** Tries ShedLock's lock again after {@link Peer#RETRY} while another node holds it, until the run's wait is over. */
    private static final class RetryingLocker implements Locker {
        private final JdbcTemplateLockProvider provider;
        private final LockWorkload workload;
        private SimpleLock held;

        RetryingLocker(JdbcTemplateLockProvider provider, LockWorkload workload) {
            this.provider = provider;
            this.workload = workload;
        }

        @Override
        public long lock(String name) {
            long deadline = System.nanoTime() + workload.waitTime().toNanos();
            while (true) {
                Optional<SimpleLock> lock = provider.lock(new LockConfiguration(Instant.now(), name, workload.lease(), Duration.ZERO));
                if (lock.isPresent()) {
                    held = lock.get();
                    return CriticalSection.NO_TOKEN;
                }
                if (System.nanoTime() - deadline >= 0) {
                    throw new LockTimeoutException(name, workload.waitTime());
                }
                LockSupport.parkNanos(RETRY.toNanos());
            }
        }

        @Override
        public void unlock() {
            SimpleLock lock = held;
            held = null;
            lock.unlock();
        }
    }
}
