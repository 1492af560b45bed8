package io.txlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.spring.app.CounterService;
import io.txlock.testkit.TestDatabase;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Two instances of the test application, each in a JVM of its own with two threads, increment one counter row
 * with an unsynchronised read and write in {@code @Transactional} methods whose only protection is a txlock lock
 * held until commit: no update is lost and the fencing tokens the critical sections see only go up.
 */
abstract class TwoJvmTest {

    private static final int INCREMENTS_PER_JVM = 150;
    private static final Duration GENEROUS = Duration.ofMinutes(3);

    abstract TestDatabase.Kind kind();

    /**
     * @return whether both instances start on a database without the lock table and create it at once
     *     (txlock.create-table); otherwise the test creates it first
     */
    abstract boolean instancesCreateTheTable();

    @Test
    void twoApplicationsInSeparateJvmsNeverHoldTheLockTogether() throws Exception {
        try (TestDatabase db = TestDatabase.create(kind())) {
            if (!instancesCreateTheTable()) {
                db.withLockTable("method_lock");
            }
            db.execute(CounterService.DDL);
            db.execute("INSERT INTO counter (id, counter_value, last_token, backwards) VALUES (1, 0, 0, 0)");
            List<String> arguments = List.of("--spring.datasource.url=" + db.url(), "--spring.datasource.username=" + db.user(),
                    "--spring.datasource.password=", "--counter.increments=" + INCREMENTS_PER_JVM, "--counter.threads=2",
                    "--" + StarterTest.WITHOUT_JPA, "--txlock.create-table=" + instancesCreateTheTable());
            try (AppJvm first = AppJvm.start("app-1", arguments); AppJvm second = AppJvm.start("app-2", arguments)) {
                first.expect("READY", GENEROUS);
                second.expect("READY", GENEROUS);
                first.send("GO");
                second.send("GO");
                first.expect("DONE", GENEROUS);
                second.expect("DONE", GENEROUS);
                first.awaitSuccess(GENEROUS);
                second.awaitSuccess(GENEROUS);
            }
            JdbcTemplate jdbc = new JdbcTemplate(db.dataSource());
            assertThat(jdbc.queryForObject("SELECT counter_value FROM counter WHERE id = 1", Long.class))
                    .as("no update lost").isEqualTo(2L * INCREMENTS_PER_JVM);
            assertThat(jdbc.queryForObject("SELECT backwards FROM counter WHERE id = 1", Long.class))
                    .as("fencing tokens that did not increase").isZero();
            assertThat(jdbc.queryForObject("SELECT last_token FROM counter WHERE id = 1", Long.class)).isPositive();
        }
    }
}
