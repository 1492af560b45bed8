package io.txlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;
import java.time.Duration;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationState;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The scripts of {@code txlock-sql} are Flyway migrations as they are: Flyway, pointed at
 * {@code classpath:io/txlock/sql/<dialect>}, applies version 1 in a fresh schema or database, and the table it
 * creates passes the provider's own table check and grants locks with every strategy. MySQL's script runs on MariaDB
 * (the MySQL dialect runs there too).
 */
class FlywayMigrationTest {

    @ParameterizedTest
    @EnumSource(ShippedScript.class)
    void flywayAppliesTheShippedScriptAndTheProviderLocksOnItsTable(ShippedScript script) {
        try (TestDatabase db = TestDatabase.create(script.kind)) {
            assertThatThrownBy(() -> provider(db, script, Strategy.SELECT_FOR_UPDATE))
                    .as("the provider's table check before the migration")
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not exist");

            Flyway flyway = Flyway.configure()
                    .dataSource(db.dataSource())
                    .locations("classpath:" + script.dialect.scriptLocation())
                    .load();
            MigrateResult result = flyway.migrate();

            assertThat(result.success).as("Flyway's migration of %s", script.dialect.scriptLocation()).isTrue();
            assertThat(result.migrationsExecuted).as("migrations executed").isEqualTo(1);
            assertThat(result.targetSchemaVersion).as("schema version after the migration").isEqualTo("1");
            MigrationInfo current = flyway.info().current();
            assertThat(current).as("the current migration").isNotNull();
            assertThat(current.getVersion().getVersion()).isEqualTo("1");
            assertThat(current.getState()).isEqualTo(MigrationState.SUCCESS);
            assertThat(flyway.validateWithResult().validationSuccessful).as("Flyway's validation after the migration").isTrue();
            assertThat(flyway.migrate().migrationsExecuted).as("migrations executed by a second migrate").isZero();

            for (Strategy strategy : script.dialect.strategies()) {
                assertGrants(db, script, strategy);
            }
        }
    }

    /** Builds two providers on the migrated table (each checks it), and takes a lock that the other node sees held. */
    private static void assertGrants(TestDatabase db, ShippedScript script, Strategy strategy) {
        String name = "flyway-" + strategy;
        LockOptions lease = LockOptions.defaults().withScope(LockScope.LEASE).withWait(Duration.ofSeconds(10));
        try (LockManager node = LockManager.builder(provider(db, script, strategy)).build();
                LockManager other = LockManager.builder(provider(db, script, strategy)).build()) {
            long token;
            try (LockHandle handle = node.acquire(name, lease)) {
                assertThat(handle.isValid()).as("%s lock on the migrated table", strategy).isTrue();
                assertThat(handle.fencingToken()).as("%s token", strategy).isPositive();
                assertThat(other.tryAcquire(name)).as("%s lock of another node while held", strategy).isEmpty();
                token = handle.fencingToken();
            }
            try (LockHandle next = other.acquire(name, lease)) {
                assertThat(next.fencingToken()).as("%s token of the next holder", strategy).isGreaterThan(token);
            }
        }
    }

    private static JdbcLockProvider provider(TestDatabase db, ShippedScript script, Strategy strategy) {
        return JdbcLockProvider.builder(db.dataSource()).dialect(script.dialect).strategy(strategy)
                .reaperPeriod(Duration.ZERO).build();
    }
}
