package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.jdbc.JdbcLockProvider;
import io.txlock.jdbc.JdbcLockSchema;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code java -jar lock-bench.jar admin …} as the jar runs it, on an H2 database that a lock manager of the test uses:
 * the command lists the manager's lock with its token, refuses a stale token (exit 1), and force-releases it with the
 * token it showed; the holder loses it, and the audit line names operator, lock and token.
 */
@Timeout(120)
class LockAdminCommandTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        out.reset();
        err.reset();
        return LockBench.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String printed() {
        return out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void listsAnotherProcesssLockAndForceReleasesItWithItsTokenOnly() throws Exception {
        String url = "jdbc:h2:mem:admin_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1";
        try (HikariDataSource dataSource = new HikariDataSource()) {
            dataSource.setJdbcUrl(url);
            JdbcLockSchema.createIfAbsent(dataSource);
            try (LockManager locks = LockManager.builder(JdbcLockProvider.builder(dataSource)
                    .strategy(Strategy.OPTIMISTIC_VERSION).build()).build()) {
                LockHandle held = locks.acquire("job:nightly", LockOptions.defaults().withScope(LockScope.LEASE)
                        .withLease(Duration.ofSeconds(3)));
                CountDownLatch lost = new CountDownLatch(1);
                held.onLost(lost::countDown);
                String token = Long.toString(held.fencingToken());
                String[] backend = {"--jdbc-url", url, "--strategy", "OPTIMISTIC_VERSION"};

                assertThat(run(concat(new String[] {"admin", "list", "--prefix", "job:"}, backend))).as(printed()).isZero();
                assertThat(printed()).containsPattern("job:nightly +" + token + " +" + locks.instanceId() + "/")
                        .contains("1 lock(s) held on jdbc h2 OPTIMISTIC_VERSION on method_lock");

                String stale = Long.toString(held.fencingToken() - 1);
                assertThat(run(concat(new String[] {"admin", "release", "--name", "job:nightly", "--token", stale}, backend)))
                        .as(printed()).isEqualTo(1);
                assertThat(printed()).contains("refused: lock 'job:nightly' is not held under token " + stale);
                assertThat(held.isValid()).isTrue();

                PrintStream stderr = System.err;
                ByteArrayOutputStream logged = new ByteArrayOutputStream();
                int status;
                System.setErr(new PrintStream(logged, true, StandardCharsets.UTF_8));  // slf4j-simple writes to System.err
                try {
                    status = run(concat(new String[] {"admin", "release", "--name", "job:nightly", "--token", token,
                            "--operator", "alice"}, backend));
                } finally {
                    System.setErr(stderr);
                }
                assertThat(status).as(printed()).isZero();
                assertThat(printed()).contains("released 'job:nightly' token " + token + ", held by " + locks.instanceId() + "/");
                assertThat(logged.toString(StandardCharsets.UTF_8)).as("audit log")
                        .containsPattern("WARN io\\.txlock\\.audit - force-released lock 'job:nightly' token " + token
                                + " held by " + locks.instanceId() + "/\\S+ on \\S+ since .* by alice on jdbc h2");
                assertThat(lost.await(30, TimeUnit.SECONDS)).as("the holder learned of it").isTrue();
                assertThat(held.isValid()).isFalse();

                assertThat(run(concat(new String[] {"admin", "list"}, backend))).isZero();
                assertThat(printed()).contains("0 lock(s) held");
            }
        }
    }

    @Test
    void badOptionsExitWith2AndAnUnreachableBackendWith3() {
        assertThat(run("admin", "list")).as(printed()).isEqualTo(2);
        assertThat(printed()).contains("--jdbc-url").contains("--redis").contains("--zookeeper").contains("--etcd");
        assertThat(run("admin", "release", "--redis", "127.0.0.1:6379", "--name", "x")).as(printed()).isEqualTo(2);
        assertThat(printed()).contains("--token");
        assertThat(run("admin", "list", "--redis", "127.0.0.1:1")).as(printed()).isEqualTo(3);
        assertThat(printed()).contains("failed: ").contains("127.0.0.1:1");
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
