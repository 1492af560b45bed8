package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A short run of every scenario on the machine's real servers passes the checker: PostgreSQL, MariaDB with the
 * MariaDB driver, and MySQL Connector/J against that MariaDB, each in a fresh namespace that the backend drops
 * afterwards. One strategy per database (together they cover all three), plus the claim way of {@code orders}. A
 * server that is down fails the test: {@link BenchRun} reports it as an error.
 */
class JdbcSmokeTest {

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"POSTGRESQL, UNIQUE_INSERT, PostgreSQL JDBC Driver", "MARIADB, SELECT_FOR_UPDATE, MariaDB Connector/J",
        "MYSQL, OPTIMISTIC_VERSION, MySQL Connector/J"})
    void everyScenarioPassesTheCheckerOnTheServer(BackendKind kind, String strategy, String driver) {
        BenchConfig config = Configs.quick(kind, List.of(strategy), List.of("orders", "counter", "keys", "handoff"));

        BenchReport report = BenchRun.run(config, "test", Progress.silent());

        assertThat(report.errors()).as("errors (a server that is down is one)").isEmpty();
        assertThat(report.backends()).singleElement().satisfies(b -> assertThat(b.describe()).contains(driver));
        assertThat(report.results()).extracting(r -> r.scenario() + " " + r.strategy()).containsExactly(
                "orders " + strategy, "orders CLAIM", "counter " + strategy, "keys " + strategy, "handoff " + strategy);
        assertThat(report.passed()).isTrue();
        for (ScenarioResult r : report.results()) {
            String what = kind.cliName() + " " + r.scenario() + " " + r.strategy();
            Measurement txlock = r.way("txlock");
            assertThat(r.failures()).as(what).isEmpty();
            assertThat(txlock.verdict().passed()).as("%s: checker %s", what, txlock.verdict().summary()).isTrue();
            assertThat(txlock.verdict().sections()).as(what).isPositive();
            assertThat(txlock.ops()).as(what).isPositive();
        }
        for (ScenarioResult r : results(report, "counter", "keys", "handoff")) {
            for (Measurement m : r.measurements()) {
                String what = kind.cliName() + " " + r.scenario() + " " + m.way();
                assertThat(m.count("lost updates")).as(what).isZero();
                assertThat(m.count("counter")).as(what).isEqualTo(m.count("increments")).isEqualTo(m.finished());
            }
        }
        for (ScenarioResult orders : results(report, "orders")) {
            assertOrdersStoredOnceWithoutDeadlocks(kind.cliName() + " " + orders.strategy(), orders);
        }
        ScenarioResult keys = results(report, "keys").get(0);
        assertThat(keys.way("floor").verdict().sections()).isPositive();
        assertThat(keys.ratio().value()).isEqualTo(keys.way("txlock").throughput() / keys.way("floor").throughput());
        ScenarioResult handoff = results(report, "handoff").get(0);
        assertThat(handoff.way("floor").describe()).contains("FOR UPDATE");
        assertThat(handoff.way("floor").handoff().count()).isPositive();
        for (ScenarioResult r : results(report, "orders", "keys", "handoff")) {
            assertThat(r.peers()).extracting(Measurement::way).containsExactly(ShedLockPeer.NAME, JdbcLockRegistryPeer.NAME);
            for (Measurement peer : r.peers()) {
                String what = kind.cliName() + " " + r.scenario() + " " + peer.way();
                assertThat(peer.verdict().passed()).as("%s: checker %s", what, peer.verdict().summary()).isTrue();
                assertThat(peer.notes()).as(what).noneMatch(n -> n.startsWith(LockScenario.PEER_VIOLATION));
                assertThat(peer.finished()).as(what).isPositive();
            }
        }
        boolean shedLockTarget = kind != BackendKind.MYSQL && !strategy.equals("SELECT_FOR_UPDATE");
        assertThat(keys.targets()).as("issue 14's 1.5 x ShedLock").filteredOn(t -> t.what().equals("txlock/ShedLock throughput"))
                .hasSize(shedLockTarget ? 1 : 0);
    }

    /**
     * ADVISORY on each server: every scenario passes the checker, and its floors are the database's bare advisory
     * lock (a cycle, and a handoff waiting in the database).
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"POSTGRESQL, pg_advisory_xact_lock", "MARIADB, GET_LOCK", "MYSQL, GET_LOCK"})
    void advisoryLocksPassTheCheckerAgainstTheDatabasesBareAdvisoryLock(BackendKind kind, String floor) {
        BenchConfig config = Configs.quick(kind, List.of("ADVISORY"), List.of("orders", "counter", "keys", "handoff"));

        BenchReport report = BenchRun.run(config, "test", Progress.silent());

        assertThat(report.errors()).as("errors").isEmpty();
        assertThat(report.results()).extracting(r -> r.scenario() + " " + r.strategy())
                .contains("orders ADVISORY", "counter ADVISORY", "keys ADVISORY", "handoff ADVISORY");
        assertThat(report.passed()).isTrue();
        for (ScenarioResult r : report.results()) {
            String what = kind.cliName() + " " + r.scenario() + " " + r.strategy();
            assertThat(r.failures()).as(what).isEmpty();
            assertThat(r.way("txlock").verdict().passed()).as("%s: checker %s", what, r.way("txlock").verdict().summary()).isTrue();
            assertThat(r.way("txlock").verdict().sections()).as(what).isPositive();
        }
        assertThat(results(report, "keys").get(0).way("floor").describe()).contains(floor);
        ScenarioResult handoff = results(report, "handoff").get(0);
        assertThat(handoff.way("floor").describe()).contains(floor);
        assertThat(handoff.way("floor").handoff().count()).isPositive();
    }

    /**
     * In one run of several strategies, each handoff is compared with the database's own blocking handoff of its kind
     * of lock: ADVISORY with the bare advisory lock, the row strategies with the bare row lock.
     */
    @Test
    void eachStrategysHandoffFloorIsItsOwnKindOfLock() {
        BenchConfig config = Configs.quick(BackendKind.POSTGRESQL, List.of("SELECT_FOR_UPDATE", "ADVISORY"), List.of("handoff"));

        BenchReport report = BenchRun.run(config, "test", Progress.silent());

        assertThat(report.errors()).as("errors").isEmpty();
        assertThat(results(report, "handoff")).extracting(r -> r.strategy() + ": " + r.way("floor").describe())
                .containsExactly("SELECT_FOR_UPDATE: SELECT … FOR UPDATE waiting in the database, woken by the holder's ROLLBACK",
                        "ADVISORY: pg_advisory_xact_lock waiting in the database, woken by the holder's COMMIT");
    }

    @Test
    void h2OffersEveryStrategyButAdvisory() throws Exception {
        try (JdbcBackend h2 = JdbcBackend.open(BackendSpec.defaults(BackendKind.H2), 2, 2, false)) {
            assertThat(h2.strategies()).containsExactly("SELECT_FOR_UPDATE", "OPTIMISTIC_VERSION", "UNIQUE_INSERT");
        }
    }

    /**
     * docs/design.md's configuration of the idempotency target, 64 concurrent clients with duplicate submissions on
     * MariaDB: every order stored once and no deadlock under txlock, lock and claim alike, while the seed's way
     * runs beside them. Its throughput is not asserted (a tiny window on a shared machine); that the target applies
     * is. One retry keeps the seed's lock wait timeouts from stretching the run.
     */
    @Test
    void ordersWithSixtyFourClientsOnMariaDbStoreEveryOrderOnceWithoutDeadlocks() {
        BenchConfig config = Configs.withClients(Configs.quick(BackendKind.MARIADB, List.of("SELECT_FOR_UPDATE"), List.of("orders")),
                OrdersScenario.TARGET_CLIENTS, 1);

        BenchReport report = BenchRun.run(config, "test", Progress.silent());

        assertThat(report.errors()).as("errors (a server that is down is one)").isEmpty();
        assertThat(report.results()).extracting(ScenarioResult::strategy).containsExactly("SELECT_FOR_UPDATE", OrdersScenario.CLAIM);
        assertThat(report.passed()).isTrue();
        for (ScenarioResult orders : report.results()) {
            assertOrdersStoredOnceWithoutDeadlocks("mariadb 64 clients " + orders.strategy(), orders);
            assertThat(orders.settings()).startsWith("64 clients");
            assertThat(orders.ratio().verdict()).as("the 3x target applies to MariaDB with 64 clients")
                    .isNotEqualTo(Target.Verdict.INFO);
        }
    }

    private static void assertOrdersStoredOnceWithoutDeadlocks(String what, ScenarioResult orders) {
        Measurement txlock = orders.way("txlock");
        String notes = String.join("; ", txlock.notes());
        assertThat(orders.failures()).as(what).isEmpty();
        assertThat(txlock.verdict().passed()).as("%s: checker %s", what, txlock.verdict().summary()).isTrue();
        assertThat(txlock.count("orders")).as(what).isPositive();
        assertThat(txlock.count("duplicates")).as("%s: orders stored twice (%s)", what, notes).isZero();
        assertThat(txlock.count("not stored")).as("%s: orders lost (%s)", what, notes).isZero();
        assertThat(txlock.count("stored")).as("%s: every order stored exactly once", what).isEqualTo(txlock.count("orders"));
        assertThat(txlock.count(SqlFailure.DEADLOCK.countName())).as("%s: deadlocks under txlock (%s)", what, notes).isZero();
        assertThat(orders.targets()).filteredOn(t -> t.what().equals("txlock deadlocks")).singleElement()
                .satisfies(t -> assertThat(t.verdict()).isEqualTo(Target.Verdict.MET));

        Measurement seed = orders.way("seed");
        assertThat(seed).as("%s: the seed's yardstick", what).isNotNull();
        assertThat(seed.describe()).contains("FOR UPDATE");
        assertThat(seed.count("orders")).as("%s: the seed's orders", what).isPositive();
        assertThat(seed.verdict().sections()).as("%s: the seed's critical sections", what).isPositive();
        assertThat(orders.ratio()).as(what).isNotNull();
        assertThat(orders.ratio().what()).isEqualTo("txlock/seed throughput");
        assertThat(orders.ratio().value()).as("%s: txlock/seed measured on both sides", what).isNotNaN();
    }

    private static List<ScenarioResult> results(BenchReport report, String... scenarios) {
        List<String> wanted = List.of(scenarios);
        return report.results().stream().filter(r -> wanted.contains(r.scenario())).toList();
    }
}
