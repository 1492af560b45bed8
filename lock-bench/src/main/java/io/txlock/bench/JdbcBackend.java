package io.txlock.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txlock.Strategy;
import io.txlock.jdbc.JdbcClaims;
import io.txlock.jdbc.JdbcDialect;
import io.txlock.jdbc.JdbcLockProvider;
import io.txlock.jdbc.JdbcLockSchema;
import io.txlock.jdbc.JdbcTransactions;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * H2, PostgreSQL, MariaDB or MySQL through JDBC. The parent creates a fresh namespace (an in-memory H2 database,
 * a PostgreSQL schema, a MariaDB/MySQL database) with one lock table per strategy and drops it when closed; a
 * worker JVM connects to that namespace (embedded H2 is served to it over TCP). The business tables of the
 * idempotency scenario live in the same namespace.
 */
final class JdbcBackend implements Backend {

    /** How long a business statement may wait for a row lock, as an application would configure it. */
    static final Duration STATEMENT_LOCK_WAIT = Duration.ofSeconds(5);

    private final BackendSpec spec;
    private JdbcDialect dialect;
    private final String namespace;
    private final String url;
    private final String user;
    private final String password;
    private final Set<Strategy> tablesCreated = EnumSet.noneOf(Strategy.class);
    private int claimTables;
    private final Connection keepAlive;
    private final String describe;
    private final int poolSize;
    private final int rowLockPoolSize;
    private final String servedUrl;
    private HikariDataSource pool;
    private HikariDataSource rowLockPool;
    private HikariDataSource sessionLockPool;
    private org.h2.tools.Server h2Server;
    private List<Peer> peers;

    private JdbcBackend(BackendSpec spec, int poolSize, int rowLockPoolSize, boolean servedToWorkers) throws SQLException {
        this.poolSize = poolSize;
        this.rowLockPoolSize = rowLockPoolSize;
        this.spec = spec;
        this.user = spec.effectiveUser();
        this.password = spec.password();
        String server = spec.effectiveUrl();
        this.dialect = switch (spec.kind()) {
            case H2 -> JdbcDialect.H2;
            case POSTGRESQL -> JdbcDialect.POSTGRESQL;
            case MARIADB -> JdbcDialect.MARIADB;
            case MYSQL -> JdbcDialect.MYSQL;
            default -> throw new IllegalArgumentException(spec.kind() + " is not a JDBC backend");
        };
        if (spec.prepared()) {
            this.namespace = null;
            this.url = server;
        } else {
            this.namespace = "txlock_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
            this.url = createNamespace(server);
        }
        this.keepAlive = spec.kind() == BackendKind.H2 && !spec.prepared() ? connect(url) : null;
        this.servedUrl = servedToWorkers ? childSpec().url() : url;
        this.describe = describeServer();
    }

    /**
     * @param spec the server and login
     * @param poolSize the connections every run of this backend may use at once
     * @param rowLockPoolSize the connections LEASE row locks (SELECT_FOR_UPDATE) may hold at once
     * @param servedToWorkers worker JVMs will use it: then this JVM, too, reaches an embedded H2 over TCP, so that
     *     its floor pays the same network cost as the workers
     * @return the backend in a fresh namespace, or in the spec's namespace if it is {@link BackendSpec#prepared()}
     * @throws SQLException if the server cannot be reached or refused to create the namespace
     */
    static JdbcBackend open(BackendSpec spec, int poolSize, int rowLockPoolSize, boolean servedToWorkers) throws SQLException {
        return new JdbcBackend(spec, poolSize, rowLockPoolSize, servedToWorkers);
    }

    private String createNamespace(String server) throws SQLException {
        switch (spec.kind()) {
            case H2 -> {
                if (server.equals(BackendKind.H2.defaultUrl())) {
                    return "jdbc:h2:mem:" + namespace + ";DB_CLOSE_DELAY=-1";
                }
                execute(server, "CREATE SCHEMA " + namespace);
                return server + ";SCHEMA=" + namespace;
            }
            case POSTGRESQL -> {
                execute(server, "CREATE SCHEMA " + namespace);
                return server + (server.contains("?") ? "&" : "?") + "currentSchema=" + namespace;
            }
            default -> {
                execute(server, "CREATE DATABASE " + namespace + " CHARACTER SET utf8mb4");
                int query = server.indexOf('?');
                String base = query < 0 ? server : server.substring(0, query);
                String params = query < 0 ? "" : server.substring(query);
                return base.substring(0, base.lastIndexOf('/') + 1) + namespace + params;
            }
        }
    }

    private void execute(String target, String sql) throws SQLException {
        try (Connection c = connect(target); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /**
     * Embedded H2 runs in this JVM and counts nothing. MariaDB and MySQL count the statements clients send
     * ({@code Questions}, which counts the query that reads it) and InnoDB's fsyncs, its redo log's included
     * ({@code Innodb_data_fsyncs}); PostgreSQL counts transactions of the database ({@code pg_stat_database}), not
     * statements, and WAL syncs ({@code pg_stat_wal}), and its backends report both up to a second late.
     */
    @Override
    public ServerUsage openServerUsage() {
        if (spec.kind() == BackendKind.H2) {
            return ServerUsage.embedded("embedded H2", null, null, "embedded H2 counts no requests");
        }
        java.net.URI address = java.net.URI.create(spec.effectiveUrl().substring("jdbc:".length()));
        boolean postgres = spec.kind() == BackendKind.POSTGRESQL;
        int port = address.getPort() > 0 ? address.getPort() : postgres ? 5432 : 3306;
        String sql = postgres ? "SELECT (SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()),"
                + " (SELECT wal_sync FROM pg_stat_wal)"
                : "SELECT (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'QUESTIONS'),"
                + " (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'INNODB_DATA_FSYNCS')";
        Connection counting;
        try {
            counting = connect(spec.effectiveUrl());
        } catch (SQLException e) {
            return ServerUsage.ofServer(spec.kind().cliName(), address.getHost(), port, null, null, "no connection to read the count: "
                    + e.getMessage());
        }
        ServerUsage.Counter counter = new ServerUsage.Counter() {
            @Override
            public long read() throws SQLException {
                return counts().requests();
            }

            @Override
            public ServerUsage.Counts counts() throws SQLException {
                try (Statement s = counting.createStatement(); java.sql.ResultSet rs = s.executeQuery(sql)) {
                    rs.next();
                    return new ServerUsage.Counts(rs.getLong(1), rs.getLong(2));
                }
            }

            @Override
            public long ownRequests() {
                return 1;
            }

            @Override
            public String note() {
                return postgres ? "PostgreSQL counts transactions, not statements (that needs pg_stat_statements), of the whole"
                        + " database; a backend reports them at most once a second, and those of a transaction that touched no"
                        + " table (pg_advisory_xact_lock + COMMIT) only with a later one that did, or when its connection closes:"
                        + " such counts are low" : null;
            }

            @Override
            public void close() {
                try {
                    counting.close();
                } catch (SQLException e) {
                    // a connection used for readings only
                }
            }
        };
        return ServerUsage.ofServer(spec.kind().cliName(), address.getHost(), port, postgres ? "transactions" : "requests", counter, null);
    }

    private Connection connect(String target) throws SQLException {
        try {
            return DriverManager.getConnection(target, user, password);
        } catch (SQLException e) {
            throw new SQLException("could not connect to " + target + " as " + user + ": " + e.getMessage()
                    + " (start the server, or point --jdbc-url/--user/--password at one)", e.getSQLState(), e);
        }
    }

    private String describeServer() throws SQLException {
        try (Connection c = connect(url)) {
            DatabaseMetaData md = c.getMetaData();
            if (md.getDatabaseProductName().equalsIgnoreCase("MariaDB") || md.getDatabaseProductVersion().contains("MariaDB")) {
                dialect = JdbcDialect.MARIADB;
            }
            String where = spec.kind() == BackendKind.H2 && url.startsWith("jdbc:h2:mem:")
                    ? servedUrl != null && servedUrl.startsWith("jdbc:h2:tcp:") ? " (in memory, served over TCP)" : " (embedded, in memory)"
                    : "";
            return md.getDatabaseProductName() + " " + md.getDatabaseProductVersion() + where + " via " + md.getDriverName()
                    + " " + md.getDriverVersion();
        }
    }

    @Override
    public BackendKind kind() {
        return spec.kind();
    }

    @Override
    public String describe() {
        return describe;
    }

    @Override
    public List<String> strategies() {
        return dialect.strategies().stream().map(Strategy::name).toList();
    }

    static Strategy strategy(String name) {
        try {
            return Strategy.valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown strategy '" + name + "' for a JDBC backend: use one of "
                    + java.util.Arrays.toString(Strategy.values()), e);
        }
    }

    static String lockTable(Strategy strategy) {
        return switch (strategy) {
            case SELECT_FOR_UPDATE -> "lock_sfu";
            case OPTIMISTIC_VERSION -> "lock_opt";
            case UNIQUE_INSERT -> "lock_ins";
            case ADVISORY -> "lock_adv";
        };
    }

    @Override
    public Site openSite(String strategyName, int nodes) {
        Strategy strategy = strategy(strategyName);
        ensureLockTable(strategy);
        JdbcTransactions tx = JdbcTransactions.over(pool());
        // The dialect is set, not detected: detection takes a second pooled connection on first use, while the
        // caller's transaction holds one, and a pool sized to the clients then starves.
        return Site.of(nodes, i -> {
            JdbcLockProvider.Builder builder = JdbcLockProvider.builder(tx).strategy(strategy).table(lockTable(strategy))
                    .dialect(dialect).reaperPeriod(Duration.ZERO);
            if (strategy == Strategy.SELECT_FOR_UPDATE) {
                builder.leaseDataSource(rowLockPool());
            } else if (strategy == Strategy.ADVISORY && dialect != JdbcDialect.POSTGRESQL) {
                builder.leaseDataSource(sessionLockPool());
            }
            return builder.build();
        }, tx, dialect, List.of());
    }

    private synchronized void ensureLockTable(Strategy strategy) {
        if (spec.prepared() || tablesCreated.contains(strategy)) {
            return;
        }
        JdbcLockSchema.create(pool(), dialect, lockTable(strategy));
        tablesCreated.add(strategy);
    }

    /**
     * Claims live in a table of their own, made from the lock table's DDL, a new one per call: a committed claim
     * refuses its key for days, and every run numbers its orders from the same start.
     */
    @Override
    public synchronized Optional<JdbcClaims> claims(Site site, Duration wait) {
        String table = "claims_" + ++claimTables;
        JdbcLockSchema.create(pool(), dialect, table);
        return Optional.of(JdbcClaims.builder(site.transactions()).table(table).dialect(dialect).waitTime(wait).build());
    }

    @Override
    public void prepareWorkers(String strategyName) {
        ensureLockTable(strategy(strategyName));
    }

    /**
     * The backend's one pool, shared by its runs (which never overlap), of a fixed size and filled before it is
     * first handed out: HikariCP opens connections one at a time, and a run must not measure that.
     */
    synchronized HikariDataSource pool() {
        if (pool == null) {
            HikariConfig config = poolConfig("", poolSize);
            config.setConnectionInitSql(lockWaitSql(STATEMENT_LOCK_WAIT));
            pool = Pools.filled(config);
        }
        return pool;
    }

    /**
     * The LEASE row locks' own pool, configured as the JDBC provider's documentation recommends for
     * SELECT_FOR_UPDATE: connections not in auto-commit mode, so a lock opens its transaction without switching
     * auto-commit off and on (two round trips on MySQL/MariaDB), as the floor's session, which keeps its
     * connection in one mode for the whole run. Sized for the lock workers; filled like {@link #pool()}.
     */
    synchronized HikariDataSource rowLockPool() {
        if (rowLockPool == null) {
            HikariConfig config = poolConfig("-row-locks", rowLockPoolSize);
            config.setAutoCommit(false);
            config.setConnectionInitSql(lockWaitSql(STATEMENT_LOCK_WAIT));
            rowLockPool = Pools.filled(config);
        }
        return rowLockPool;
    }

    /**
     * The connections MySQL/MariaDB ADVISORY locks hold, one per held lock in both scopes (GET_LOCK belongs to a
     * session), in auto-commit mode: a transaction's client holds its own connection besides. Sized and filled like
     * {@link #pool()}.
     */
    synchronized HikariDataSource sessionLockPool() {
        if (sessionLockPool == null) {
            sessionLockPool = Pools.filled(poolConfig("-session-locks", poolSize));
        }
        return sessionLockPool;
    }

    /** @return a fixed-size pool of the backend's database, named {@code bench-<backend><suffix>} */
    private HikariConfig poolConfig(String suffix, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(servedUrl);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        config.setConnectionTimeout(30_000);
        config.setPoolName("bench-" + spec.kind().cliName() + suffix);
        return config;
    }

    /** @return the statement that bounds this database's row-lock waits for a session */
    String lockWaitSql(Duration wait) {
        return switch (dialect) {
            case H2 -> "SET LOCK_TIMEOUT " + wait.toMillis();
            case POSTGRESQL -> "SET lock_timeout = '" + wait.toMillis() + "ms'";
            case MYSQL, MARIADB -> "SET SESSION innodb_lock_wait_timeout = " + Math.max(1, wait.toSeconds());
        };
    }

    JdbcDialect dialect() {
        return dialect;
    }

    @Override
    public Optional<RawLocks> openRaw(String strategyName) {
        return Optional.of(new JdbcRawLocks(this, strategy(strategyName), pool()));
    }

    /** ShedLock and Spring Integration's JdbcLockRegistry, on the backend's pool, in tables of their own. */
    @Override
    public synchronized List<Peer> peers() {
        if (peers == null) {
            peers = List.of(new ShedLockPeer(pool(), dialect), new JdbcLockRegistryPeer(pool(), dialect));
        }
        return peers;
    }

    @Override
    public synchronized BackendSpec childSpec() {
        String childUrl = url;
        if (spec.kind() == BackendKind.H2 && url.startsWith("jdbc:h2:mem:")) {
            if (h2Server == null) {
                try {
                    h2Server = org.h2.tools.Server.createTcpServer("-tcpPort", "0").start();
                } catch (SQLException e) {
                    throw new IllegalStateException("could not serve H2 to worker JVMs: " + e.getMessage(), e);
                }
            }
            childUrl = "jdbc:h2:tcp://127.0.0.1:" + h2Server.getPort() + "/mem:" + url.substring("jdbc:h2:mem:".length());
        }
        return new BackendSpec(spec.kind(), childUrl, user, password, null, true);
    }

    @Override
    public void close() {
        if (rowLockPool != null) {
            rowLockPool.close();
        }
        if (sessionLockPool != null) {
            sessionLockPool.close();
        }
        if (pool != null) {
            pool.close();
        }
        try {
            if (namespace != null) {
                switch (spec.kind()) {
                    case H2 -> {
                        if (!url.startsWith("jdbc:h2:mem:")) {
                            execute(spec.effectiveUrl(), "DROP SCHEMA " + namespace + " CASCADE");
                        }
                    }
                    case POSTGRESQL -> execute(spec.effectiveUrl(), "DROP SCHEMA " + namespace + " CASCADE");
                    default -> execute(spec.effectiveUrl(), "DROP DATABASE " + namespace);
                }
            }
        } catch (SQLException e) {
            System.err.println("could not drop the bench namespace " + namespace + ": " + e.getMessage());
        } finally {
            if (h2Server != null) {
                h2Server.stop();
            }
            if (keepAlive != null) {
                try (Connection c = keepAlive; Statement s = c.createStatement()) {
                    s.execute("SHUTDOWN");
                } catch (SQLException ignored) {
                    // already gone
                }
            }
        }
    }

    @Override
    public String toString() {
        return spec.kind().cliName() + (namespace != null ? " " + namespace : "");
    }
}
