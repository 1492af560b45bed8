package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link ProcStat} finds the machine's real servers by their port and reads their CPU, ended children included. */
class ProcStatTest {

    @Test
    void aSocketOfThisJvmIsFoundAsThisJvms() throws Exception {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertThat(ProcStat.listener(socket.getLocalPort())).hasValue(ProcessHandle.current().pid());
        }
    }

    @Test
    void aPortNobodyListensOnHasNoProcess() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        assertThat(ProcStat.listener(port)).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"5432, postgres", "3306, mariadbd", "6379, redis-server"})
    void theLocalServersAreFoundByTheirPort(int port, String command) throws Exception {
        OptionalLong pid = ProcStat.listener(port);

        assertThat(pid).isPresent();
        assertThat(Files.readString(Path.of("/proc", Long.toString(pid.getAsLong()), "comm")).strip()).isEqualTo(command);
        assertThat(ProcStat.treeCpuNanos(pid.getAsLong()).orElseThrow()).isPositive();
    }

    @Test
    void commandNamesWithSpacesAndParenthesesAreSkipped() {
        String line = "4242 (a b) c) S 17 4242 4242 0 -1 4194560 100 0 0 0 250 31 7 2 20 0 1 0 99 0 0 18446744073709551615";

        ProcStat.Stat stat = ProcStat.parse(line);

        assertThat(stat.pid()).isEqualTo(4242);
        assertThat(stat.ppid()).isEqualTo(17);
        assertThat(stat.ticks()).isEqualTo(250 + 31 + 7 + 2);
    }

    /**
     * A PostgreSQL backend is a child of the postmaster: the CPU it burned counts in the postmaster's tree, while
     * it runs and after its connection closed and the postmaster reaped it.
     */
    @Test
    void theCpuOfAnEndedPostgresBackendStaysInTheServersTree() throws Exception {
        long postmaster = ProcStat.listener(5432).orElseThrow();
        long before = ProcStat.treeCpuNanos(postmaster).orElseThrow();
        long backend;
        long burned;
        try (Connection c = DriverManager.getConnection(BackendKind.POSTGRESQL.defaultUrl(), "postgres", "");
                Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
                rs.next();
                backend = rs.getLong(1);
            }
            assertThat(parentOf(backend)).isEqualTo(postmaster);
            s.execute("SELECT count(*) FROM generate_series(1, 3000000)");
            burned = ProcStat.cpuNanos(backend).orElseThrow();
            assertThat(burned).isPositive();
        }
        awaitGone(backend);

        assertThat(ProcStat.treeCpuNanos(postmaster).orElseThrow() - before).isGreaterThanOrEqualTo(burned);
    }

    private static long parentOf(long pid) throws Exception {
        return ProcStat.parse(Files.readString(Path.of("/proc", Long.toString(pid), "stat"))).ppid();
    }

    private static void awaitGone(long pid) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (ProcessHandle.of(pid).isPresent()) {
            assertThat(System.nanoTime()).as("backend %d still there", pid).isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
