package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.servers.PrivateMariaDb;
import io.txlock.servers.PrivatePostgres;
import io.txlock.servers.PrivateRedis;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * The servers' counts and CPU as {@link CostMeter} reads them around a known workload: on private MariaDB and Redis
 * servers of the test (found by their port like any local server), where nobody else adds to the count, exactly;
 * PostgreSQL's transactions on a private server too.
 */
class ServerUsageTest {

    private static final int STATEMENTS = 200;

    @TempDir
    static Path servers;

    @Test
    void mariaDbCountsEachStatementOnceAndTheReadingsNot() throws Exception {
        try (PrivateMariaDb server = PrivateMariaDb.start(servers.resolve("mariadb"));
                Backend mariadb = Backends.open(BackendSpec.defaults(BackendKind.MARIADB).at(server.url("")), 2, 2, false,
                        Duration.ofSeconds(10));
                ServerUsage usage = mariadb.openServerUsage();
                Connection c = DriverManager.getConnection(server.url(""));
                Statement s = c.createStatement()) {
            assertThat(usage.unit()).isEqualTo("requests");
            assertThat(parentOf(usage.pid())).as("the private server, a child of this JVM").isEqualTo(ProcessHandle.current().pid());
            CostMeter meter = new CostMeter(usage);
            CostMeter.Sample start = meter.start(List.of());
            s.execute("SELECT BENCHMARK(3000000, MD5('txlock'))");
            for (int i = 1; i < STATEMENTS; i++) {
                s.execute("SELECT " + i);
            }
            spendCpu(Duration.ofMillis(50));

            Cost cost = meter.between(start, meter.end(List.of()));

            assertThat(cost.requests()).isEqualTo(STATEMENTS);
            assertThat(cost.serverCpuNanos()).isPositive();
            assertThat(cost.benchCpuNanos()).isPositive();
            assertThat(cost.serverMissing()).isNull();
            assertThat(cost.requestsMissing()).isNull();
        }
    }

    /**
     * With the redo log flushed at every commit, as the shared server and MariaDB's default do (the private server
     * starts without it), each auto-committed write waits for an fsync and a read for none.
     */
    @Test
    void mariaDbCountsAnFsyncForEachCommittedWriteAndNoneForReads() throws Exception {
        try (PrivateMariaDb server = PrivateMariaDb.start(servers.resolve("mariadb-fsyncs"));
                Backend mariadb = Backends.open(BackendSpec.defaults(BackendKind.MARIADB).at(server.url("")), 2, 2, false,
                        Duration.ofSeconds(10));
                ServerUsage usage = mariadb.openServerUsage();
                Connection c = DriverManager.getConnection(server.url(""));
                Statement s = c.createStatement()) {
            s.execute("SET GLOBAL innodb_flush_log_at_trx_commit = 1");
            s.execute("CREATE DATABASE fsync_probe");
            s.execute("CREATE TABLE fsync_probe.writes (n INT PRIMARY KEY) ENGINE=InnoDB");
            CostMeter meter = new CostMeter(usage);

            CostMeter.Sample start = meter.start(List.of());
            for (int i = 0; i < STATEMENTS; i++) {
                s.execute("INSERT INTO fsync_probe.writes VALUES (" + i + ")");
            }
            Cost writes = meter.between(start, meter.end(List.of()));
            start = meter.start(List.of());
            for (int i = 0; i < STATEMENTS; i++) {
                s.execute("SELECT n FROM fsync_probe.writes WHERE n = " + i);
            }
            Cost reads = meter.between(start, meter.end(List.of()));

            assertThat(writes.fsyncs()).as("a flush of the redo log for each commit").isGreaterThanOrEqualTo(STATEMENTS);
            assertThat(reads.fsyncs()).as("reads wait for no flush (a background flush may count)").isBetween(0L, STATEMENTS / 10L);
        }
    }

    /**
     * Keeps this thread busy for {@code cpu} of its own CPU time: the JVM's CPU is read in 10 ms ticks, which 200 quick
     * statements may not reach on a fast machine, as the server's BENCHMARK makes sure its side does.
     */
    private static void spendCpu(Duration cpu) {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long until = threads.getCurrentThreadCpuTime() + cpu.toNanos();
        while (threads.getCurrentThreadCpuTime() < until) {
            Thread.onSpinWait();
        }
    }

    @Test
    void redisCountsEachCommandOnceAndTheReadingsNot() throws Exception {
        try (PrivateRedis server = PrivateRedis.start(servers.resolve("redis"));
                Backend redis = Backends.open(BackendSpec.defaults(BackendKind.REDIS).at("127.0.0.1:" + server.port()), 2, 2, false,
                        Duration.ofSeconds(10));
                ServerUsage usage = redis.openServerUsage();
                Jedis jedis = new Jedis("127.0.0.1", server.port())) {
            assertThat(usage.unit()).isEqualTo("commands");
            assertThat(parentOf(usage.pid())).as("the private server, a child of this JVM").isEqualTo(ProcessHandle.current().pid());
            CostMeter meter = new CostMeter(usage);
            CostMeter.Sample start = meter.start(List.of());
            for (int i = 0; i < STATEMENTS; i++) {
                jedis.get("nothing:" + i);
            }

            Cost cost = meter.between(start, meter.end(List.of()));

            assertThat(cost.requests()).isEqualTo(STATEMENTS);
            assertThat(cost.fsyncs()).as("Redis counts no fsyncs").isEqualTo(-1);
            assertThat(cost.serverCpuNanos()).isNotNegative();
        }
    }

    /**
     * Transactions that touch a table, in a database of its own on a private server without autovacuum (whose
     * workers' transactions would count too). The backend's setup connections report their transactions as their
     * processes exit, so the window starts once only the reading's connection and the workload's are left. A
     * connection reports at most once a second: without pg_stat_force_next_flush this window would count none of the
     * workload. Even so the count is the workload's give or take a few (a late report of the readings' own).
     */
    @Test
    void postgresCountsTheTransactionsOfItsDatabase() throws Exception {
        try (PrivatePostgres server = PrivatePostgres.start(servers.resolve("postgresql"))) {
            try (Connection admin = DriverManager.getConnection(server.url()); Statement s = admin.createStatement()) {
                s.execute("CREATE DATABASE cost_probe");
                s.execute("ALTER SYSTEM SET autovacuum = off");
                s.execute("SELECT pg_reload_conf()");
            }
            String url = server.url().replace("/postgres?", "/cost_probe?");
            try (Backend postgres = Backends.open(BackendSpec.defaults(BackendKind.POSTGRESQL).at(url), 2, 2, false,
                    Duration.ofSeconds(10));
                    ServerUsage usage = postgres.openServerUsage();
                    Connection c = DriverManager.getConnection(url);
                    Statement s = c.createStatement()) {
                assertThat(usage.unit()).isEqualTo("transactions");
                assertThat(usage.countNote()).contains("not statements");
                s.execute("CREATE TABLE cost_probe (n int)");
                awaitBackends(server.port(), "cost_probe", 2);
                CostMeter meter = new CostMeter(usage);
                CostMeter.Sample start = meter.start(List.of());
                s.execute("SELECT count(*) FROM generate_series(1, 3000000)");
                for (int i = 1; i < STATEMENTS; i++) {
                    s.execute("INSERT INTO cost_probe VALUES (" + i + ")");
                }
                s.execute("SELECT pg_stat_force_next_flush() FROM cost_probe LIMIT 1");

                Cost cost = meter.between(start, meter.end(List.of()));

                assertThat(cost.requests()).as("the statements, give or take a late report").isBetween((long) STATEMENTS, STATEMENTS + 5L);
                assertThat(cost.serverCpuNanos()).isPositive();
            }
        }
    }

    /**
     * On the shared server (the private one runs without fsync), whose other clients can only add to the count: each
     * auto-committed insert waits for a WAL sync.
     */
    @Test
    void postgresCountsAWalSyncForEachCommittedWrite() throws Exception {
        String table = "fsync_probe_" + ProcessHandle.current().pid();
        try (Backend postgres = Backends.open(BackendSpec.defaults(BackendKind.POSTGRESQL), 2, 2, false, Duration.ofSeconds(10));
                ServerUsage usage = postgres.openServerUsage();
                Connection c = DriverManager.getConnection(BackendKind.POSTGRESQL.defaultUrl(), "postgres", "");
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (n int)");
            try {
                CostMeter meter = new CostMeter(usage);
                CostMeter.Sample start = meter.start(List.of());
                for (int i = 0; i < STATEMENTS; i++) {
                    s.execute("INSERT INTO " + table + " VALUES (" + i + ")");
                }
                s.execute("SELECT pg_stat_force_next_flush()");

                Cost cost = meter.between(start, meter.end(List.of()));

                assertThat(cost.fsyncs()).as("a WAL sync for each committed insert").isGreaterThanOrEqualTo(STATEMENTS);
            } finally {
                s.execute("DROP TABLE " + table);
            }
        }
    }

    @Test
    void embeddedH2HasNeitherServerCpuNorCountAndSaysWhy() throws Exception {
        try (Backend h2 = Backends.open(BackendSpec.defaults(BackendKind.H2), 2, 2, false, Duration.ofSeconds(10));
                ServerUsage usage = h2.openServerUsage()) {
            CostMeter meter = new CostMeter(usage);

            Cost cost = meter.between(meter.start(List.of()), meter.end(List.of()));

            assertThat(cost.benchCpuNanos()).isNotNegative();
            assertThat(cost.serverCpuNanos()).isEqualTo(-1);
            assertThat(cost.requests()).isEqualTo(-1);
            assertThat(cost.fsyncs()).isEqualTo(-1);
            assertThat(cost.serverMissing()).contains("runs in the bench JVM");
            assertThat(cost.requestsMissing()).isNotBlank();
        }
    }

    @Test
    void aRemoteServersCpuIsNotReadAndTheReasonSaysSo() {
        ServerUsage usage = ServerUsage.ofServer("PostgreSQL", "192.0.2.1", 5432, null, null, "none");

        assertThat(usage.pid()).isEqualTo(-1);
        assertThat(usage.cpuMissing()).contains("not on this machine");
    }

    private static long parentOf(long pid) {
        return ProcessHandle.of(pid).flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(-1L);
    }

    /** Waits until the server has {@code count} backends on {@code database} (their titles name it). */
    private static void awaitBackends(int port, String database, int count) throws Exception {
        long postmaster = ProcStat.listener(port).orElseThrow();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (ProcessHandle.of(postmaster).orElseThrow().descendants().filter(p -> title(p.pid()).contains(" " + database + " "))
                .count() != count) {
            assertThat(System.nanoTime()).as("backends on %s", database).isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    private static String title(long pid) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).replace('\0', ' ');
        } catch (java.io.IOException e) {
            return "";
        }
    }
}
