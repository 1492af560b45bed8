package io.txlock.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.etcd.jetcd.Client;
import io.txlock.LockAdmin;
import io.txlock.LockBackendException;
import io.txlock.LockInfo;
import io.txlock.LockNotHeldException;
import io.txlock.Strategy;
import io.txlock.etcd.EtcdLockProvider;
import io.txlock.jdbc.JdbcLockProvider;
import io.txlock.redis.RedisLockProvider;
import io.txlock.spi.LockProvider;
import io.txlock.zookeeper.ZooKeeperLockProvider;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code java -jar lock-bench.jar admin list|release …}: an operator's view of the locks of one backend, over
 * {@link LockAdmin}. Exit status: 0 done; 1 the release was refused (a stale token, or a lock the backend cannot free);
 * 2 bad options; 3 the backend failed or could not be reached. Forced releases are logged to {@code io.txlock.audit}.
 */
@Command(name = "admin", mixinStandardHelpOptions = true, usageHelpWidth = 110,
        description = "List the held locks of a backend, or force-release a stuck one guarded by its fencing token.",
        subcommands = {LockAdminCommand.ListLocks.class, LockAdminCommand.Release.class},
        footer = {"", "Exit status: 0 done; 1 release refused (stale token, or a lock the backend cannot free);"
                + " 2 bad options; 3 backend failed or unreachable."})
final class LockAdminCommand implements Callable<Integer> {

    /**
     * @param args the command line after {@code admin}
     * @param out where results go
     * @param err where errors go
     * @return the exit status
     */
    static int execute(String[] args, PrintStream out, PrintStream err) {
        CommandLine cli = new CommandLine(new LockAdminCommand());
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        cli.setExecutionExceptionHandler((e, line, parsed) -> {
            if (e instanceof LockNotHeldException || e instanceof UnsupportedOperationException) {
                err.println("refused: " + e.getMessage());
                return 1;
            }
            if (e instanceof IllegalArgumentException) {
                err.println("lock-bench admin: " + e.getMessage());
                return 2;
            }
            err.println("failed: " + e.getMessage());
            return 3;
        });
        return cli.execute(args);
    }

    @Override
    public Integer call() {
        CommandLine.usage(this, System.err);
        return 2;
    }

    /** Which backend, and how to reach it: exactly one of the four. */
    static final class Backend {
        @ArgGroup(exclusive = true, multiplicity = "1")
        Endpoint endpoint;

        @Option(names = "--user", description = "database user (JDBC)")
        String user;

        @Option(names = "--password", description = "database or Redis password")
        String password;

        @Option(names = "--strategy", paramLabel = "NAME", defaultValue = "SELECT_FOR_UPDATE",
                description = "JDBC: the strategy the application locks with (default: ${DEFAULT-VALUE}): SELECT_FOR_UPDATE,"
                        + " OPTIMISTIC_VERSION, UNIQUE_INSERT")
        Strategy strategy;

        @Option(names = "--table", defaultValue = "method_lock", description = "JDBC lock table (default: ${DEFAULT-VALUE})")
        String table;

        @Option(names = "--key-prefix", paramLabel = "PREFIX",
                description = "Redis key prefix (default: txlock:) or etcd key prefix (default: /txlock/)")
        String keyPrefix;

        @Option(names = "--base-path", defaultValue = "/txlock", description = "ZooKeeper base path (default: ${DEFAULT-VALUE})")
        String basePath;

        static final class Endpoint {
            @Option(names = "--jdbc-url", paramLabel = "URL", required = true, description = "a JDBC URL (H2, PostgreSQL, MariaDB, MySQL)")
            String jdbcUrl;

            @Option(names = "--redis", paramLabel = "HOST:PORT", required = true, description = "a Redis master")
            String redis;

            @Option(names = "--zookeeper", paramLabel = "CONNECT", required = true, description = "a ZooKeeper connect string")
            String zookeeper;

            @Option(names = "--etcd", paramLabel = "URL[,URL...]", required = true, description = "etcd client URLs")
            String etcd;
        }

        /** @return a provider over the chosen backend, to close when done */
        Opened open() {
            if (endpoint.jdbcUrl != null) {
                HikariConfig config = new HikariConfig();
                config.setJdbcUrl(endpoint.jdbcUrl);
                config.setUsername(user);
                config.setPassword(password);
                config.setMaximumPoolSize(2);
                config.setConnectionTimeout(10_000);
                config.setPoolName("txlock-admin");
                HikariDataSource pool = new HikariDataSource(config);
                try {
                    return new Opened(JdbcLockProvider.builder(pool).strategy(strategy).table(table)
                            .reaperPeriod(Duration.ZERO).build(), pool);
                } catch (RuntimeException e) {
                    pool.close();
                    throw e;
                }
            }
            if (endpoint.redis != null) {
                redis.clients.jedis.DefaultJedisClientConfig.Builder config = redis.clients.jedis.DefaultJedisClientConfig.builder()
                        .connectionTimeoutMillis(5000).socketTimeoutMillis(5000);
                if (password != null) {
                    config.password(password);
                }
                return new Opened(RedisLockProvider.builder(redis.clients.jedis.HostAndPort.from(endpoint.redis), config.build())
                        .keyPrefix(keyPrefix != null ? keyPrefix : "txlock:").build(), null);
            }
            if (endpoint.zookeeper != null) {
                CuratorFramework client = CuratorFrameworkFactory.newClient(endpoint.zookeeper, new RetryNTimes(3, 500));
                client.start();
                try {
                    if (!client.blockUntilConnected(10, TimeUnit.SECONDS)) {
                        throw new LockBackendException("ZooKeeper " + endpoint.zookeeper + " did not answer within 10 s", null);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    client.close();
                    throw new LockBackendException("interrupted while connecting to ZooKeeper", e);
                } catch (RuntimeException e) {
                    client.close();
                    throw e;
                }
                return new Opened(ZooKeeperLockProvider.builder(client).basePath(basePath).closeClient(true).build(), null);
            }
            Client client = Client.builder().endpoints(endpoint.etcd.split(",")).build();
            return new Opened(EtcdLockProvider.builder(client).keyPrefix(keyPrefix != null ? keyPrefix : "/txlock/").closeClient(true)
                    .build(), null);
        }

        /** A provider and what else must close with it. */
        record Opened(LockProvider provider, HikariDataSource pool) implements AutoCloseable {
            @Override
            public void close() {
                try {
                    provider.close();
                } finally {
                    if (pool != null) {
                        pool.close();
                    }
                }
            }
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the held locks whose names start with a prefix.")
    static final class ListLocks extends OnBackend {
        @Option(names = "--prefix", defaultValue = "", description = "only names that start with it (default: every name)")
        String prefix;

        @Option(names = "--limit", defaultValue = "1000", description = "at most this many, the first by name (default: ${DEFAULT-VALUE})")
        int limit;

        @Override
        void run(LockProvider provider, PrintWriter out) {
            List<LockInfo> held = LockAdmin.over(provider).list(prefix, limit);
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"NAME", "TOKEN", "OWNER", "HOST", "SINCE", "UNTIL"});
            for (LockInfo lock : held) {
                rows.add(new String[] {lock.name(), Long.toString(lock.fencingToken()), text(lock.ownerId()),
                        text(lock.ownerHost()), text(lock.since()), text(lock.until())});
            }
            print(rows, out);
            out.println(held.size() + " lock(s) held on " + provider.describe()
                    + (held.stream().anyMatch(l -> l.ownerId() == null) ? "; '-': the backend records no holder" : ""));
        }
    }

    @Command(name = "release", mixinStandardHelpOptions = true,
            description = "Force-release a lock, only while it is still held under the token given (as 'list' showed it).")
    static final class Release extends OnBackend {
        @Option(names = "--name", required = true, description = "the lock name")
        String name;

        @Option(names = "--token", required = true, description = "the fencing token of the grant to free")
        long token;

        @Option(names = "--operator", description = "who acts, for the audit log (default: the operating system user)")
        String operator;

        @Override
        void run(LockProvider provider, PrintWriter out) {
            LockAdmin admin = LockAdmin.over(provider);
            LockInfo freed = (operator != null ? admin.operator(operator) : admin).forceRelease(name, token);
            out.println("released '" + name + "' token " + token + ", held by " + text(freed.ownerId()) + " on "
                    + text(freed.ownerHost()) + " (" + provider.describe() + ")");
        }
    }

    /** A subcommand on one backend: opens it, runs, closes it. */
    abstract static class OnBackend implements Callable<Integer> {
        @Mixin
        Backend backend;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        /**
         * @param provider the backend's provider
         * @param out where results go
         */
        abstract void run(LockProvider provider, PrintWriter out);

        @Override
        public Integer call() {
            try (Backend.Opened opened = backend.open()) {
                run(opened.provider(), spec.commandLine().getOut());
            }
            return 0;
        }
    }

    private static String text(Object value) {
        return value == null ? "-" : value.toString();
    }

    private static void print(List<String[]> rows, PrintWriter out) {
        int[] widths = new int[rows.get(0).length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                line.append(String.format("%-" + widths[i] + "s", row[i])).append(i < row.length - 1 ? "  " : "");
            }
            out.println(line.toString().stripTrailing());
        }
    }
}
