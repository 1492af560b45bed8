package io.txlock.bench;

import io.txlock.LockTimeoutException;
import io.txlock.jdbc.JdbcDialect;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import javax.sql.DataSource;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Spring Integration's {@link JdbcLockRegistry} over a {@link DefaultLockRepository} on the backend's database, in
 * the {@code INT_LOCK} table of Spring Integration's own schema script. Each node is one registry with its own
 * repository (client id), set up as a Spring context would. A lock polls the database; its pause between tries is
 * set to {@link Peer#RETRY}, the floor's retry (Spring's default is 100 ms), and its time to live to the run's lease.
 * Workers of one node queue on the registry's local lock first.
 */
final class JdbcLockRegistryPeer implements Peer {

    static final String NAME = "JdbcLockRegistry";

    private final DataSource pool;
    private final JdbcDialect dialect;
    private boolean tableCreated;

    JdbcLockRegistryPeer(DataSource pool, JdbcDialect dialect) {
        this.pool = pool;
        this.dialect = dialect;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String describe() {
        return "Spring Integration JdbcLockRegistry (DefaultLockRepository): UPDATE or INSERT INT_LOCK + DELETE, each in its own"
                + " transaction; polls every 1 ms while held (Spring's default: 100 ms)";
    }

    /** @return the CREATE TABLE INT_LOCK statement of Spring Integration's schema script for this database */
    String lockTableDdl() {
        String script = switch (dialect) {
            case H2 -> "h2";
            case POSTGRESQL -> "postgresql";
            case MYSQL, MARIADB -> "mysql";
        };
        String resource = "org/springframework/integration/jdbc/schema-" + script + ".sql";
        try (InputStream in = JdbcLockRegistry.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("spring-integration-jdbc has no " + resource);
            }
            String sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int start = sql.indexOf("CREATE TABLE INT_LOCK");
            if (start < 0) {
                throw new IllegalStateException(resource + " creates no INT_LOCK table");
            }
            return sql.substring(start, sql.indexOf(';', start));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private synchronized void createTable() throws SQLException {
        if (tableCreated) {
            return;
        }
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute(lockTableDdl());
        }
        tableCreated = true;
    }

    @Override
    public Nodes open(int nodes, LockWorkload workload) throws SQLException {
        createTable();
        List<DefaultLockRepository> repositories = new ArrayList<>();
        List<JdbcLockRegistry> registries = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            DefaultLockRepository repository = new DefaultLockRepository(pool);
            repository.setTimeToLive((int) Math.min(Integer.MAX_VALUE, workload.lease().toMillis()));
            repository.setTransactionManager(new DataSourceTransactionManager(pool));
            repository.afterPropertiesSet();
            repository.afterSingletonsInstantiated();
            repository.start();
            repositories.add(repository);
            JdbcLockRegistry registry = new JdbcLockRegistry(repository);
            registry.setIdleBetweenTries(RETRY);
            registries.add(registry);
        }
        return new Nodes() {
            @Override
            public Locker locker(int worker) {
                JdbcLockRegistry registry = registries.get(worker % registries.size());
                return new Locker() {
                    private Lock held;

                    @Override
                    public long lock(String name) throws InterruptedException {
                        Lock lock = registry.obtain(name);
                        if (!lock.tryLock(workload.waitTime().toMillis(), TimeUnit.MILLISECONDS)) {
                            throw new LockTimeoutException(name, workload.waitTime());
                        }
                        held = lock;
                        return CriticalSection.NO_TOKEN;
                    }

                    @Override
                    public void unlock() {
                        Lock lock = held;
                        held = null;
                        lock.unlock();
                    }
                };
            }

            @Override
            public void close() {
                repositories.forEach(DefaultLockRepository::close);
            }
        };
    }
}
