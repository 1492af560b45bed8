package io.txlock.bench;

import io.txlock.jdbc.JdbcDialect;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
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
final class JdbcLockRegistryPeer extends TablePeer {

    static final String NAME = "JdbcLockRegistry";

    JdbcLockRegistryPeer(DataSource pool, JdbcDialect dialect) {
        super(NAME, pool, dialect);
    }

    @Override
    public String describe() {
        return "Spring Integration JdbcLockRegistry (DefaultLockRepository): UPDATE or INSERT INT_LOCK + DELETE, each in its own"
                + " transaction; polls every 1 ms while held (Spring's default: 100 ms)";
    }

    /** @return the CREATE TABLE INT_LOCK statement of Spring Integration's schema script for this database */
    @Override
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
        return Nodes.of(worker -> PeerLocker.overLocks(registries.get(worker % registries.size())::obtain, workload.waitTime()),
                () -> repositories.forEach(DefaultLockRepository::close));
    }
}
