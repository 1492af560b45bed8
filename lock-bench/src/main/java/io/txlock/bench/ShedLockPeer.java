package io.txlock.bench;

import io.txlock.jdbc.JdbcDialect;
import java.sql.SQLException;
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
final class ShedLockPeer extends TablePeer {

    static final String NAME = "ShedLock";
    private static final String TABLE = "shedlock";

    ShedLockPeer(DataSource pool, JdbcDialect dialect) {
        super(NAME, pool, dialect);
    }

    @Override
    public String describe() {
        return "ShedLock JdbcTemplateLockProvider, usingDbTime(): INSERT or UPDATE … WHERE lock_until <= now + UPDATE"
                + " lock_until = now, each in its own transaction; skipped when held, so retried after 1 ms";
    }

    @Override
    String lockTableDdl() {
        String time = dialect == JdbcDialect.MYSQL || dialect == JdbcDialect.MARIADB ? "TIMESTAMP(3)" : "TIMESTAMP";
        return "CREATE TABLE " + TABLE + " (name VARCHAR(64) NOT NULL, lock_until " + time + " NOT NULL, locked_at " + time
                + " NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))";
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
        // the providers hold no resources of their own: nothing to close
        return Nodes.of(worker -> new PeerLocker<SimpleLock>(workload.waitTime(),
                (name, wait) -> lockRetrying(providers.get(worker % providers.size()), name, wait, workload.lease()),
                SimpleLock::unlock), () -> { });
    }

    /** @return ShedLock's lock, tried again after {@link Peer#RETRY} while another node holds it; null once the wait is over */
    private static SimpleLock lockRetrying(JdbcTemplateLockProvider provider, String name, Duration wait, Duration lease) {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            Optional<SimpleLock> lock = provider.lock(new LockConfiguration(Instant.now(), name, lease, Duration.ZERO));
            if (lock.isPresent()) {
                return lock.get();
            }
            if (System.nanoTime() - deadline >= 0) {
                return null;
            }
            LockSupport.parkNanos(RETRY.toNanos());
        }
    }
}
