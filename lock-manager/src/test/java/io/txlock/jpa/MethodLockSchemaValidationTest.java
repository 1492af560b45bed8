package io.txlock.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.entity.MethodLock;
import io.txlock.jdbc.JdbcLockSchema;
import io.txlock.jdbc.ShippedScript;
import io.txlock.testkit.TestDatabase;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The {@link MethodLock} mapping and the DDL shipped in {@code txlock-sql} cannot drift apart: Hibernate's schema
 * validation ({@code hibernate.hbm2ddl.auto=validate}) accepts the real script of every dialect, and refuses a
 * table that lost a column or changed a column's type. MySQL's script, which has no server of its own here, is
 * validated on MariaDB (the MySQL dialect runs there too), in a database of its own.
 *
 * <p>It lives in lock-manager's tests, not in jpa-entities, because the namespaces on the real servers
 * ({@link TestDatabase}) and the script loader ({@link JdbcLockSchema}) are here, and jpa-entities cannot use
 * lock-manager's test-jar (lock-manager depends on jpa-entities).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MethodLockSchemaValidationTest {

    private final Map<ShippedScript, TestDatabase> databases = new EnumMap<>(ShippedScript.class);
    private TestDatabase current;

    @BeforeAll
    void startDatabases() {
        for (ShippedScript script : ShippedScript.values()) {
            databases.put(script, TestDatabase.create(script.kind));
        }
    }

    @AfterAll
    void dropDatabases() {
        databases.values().forEach(TestDatabase::close);
    }

    @AfterEach
    void dropTable() {
        if (current != null) {
            current.execute("DROP TABLE IF EXISTS method_lock");
            current.execute("DROP SEQUENCE IF EXISTS method_lock_token_seq");
            current.execute("DROP TABLE IF EXISTS method_lock_token");
            current = null;
        }
    }

    @ParameterizedTest
    @EnumSource(ShippedScript.class)
    void hibernateAcceptsTheShippedDdl(ShippedScript script) {
        createTable(script, UnaryOperator.identity());

        try (EntityManagerFactory emf = validate(current)) {
            assertThat(emf.getMetamodel().entity(MethodLock.class).getName()).isEqualTo("MethodLock");
        }
    }

    @ParameterizedTest
    @EnumSource(ShippedScript.class)
    void validationFailsWhenAColumnIsMissing(ShippedScript script) {
        createTable(script, ddl -> ddl.replaceAll("(?m)^\\s*updated_at .*\\n", ""));

        assertThatThrownBy(() -> validate(current).close())
                .rootCause().hasMessageContaining("missing column [updated_at]");
    }

    @ParameterizedTest
    @EnumSource(ShippedScript.class)
    void validationFailsWhenAColumnHasAnotherType(ShippedScript script) {
        createTable(script, ddl -> ddl.replaceAll("(?m)^(\\s*version\\s+)BIGINT", "$1VARCHAR(20)"));

        assertThatThrownBy(() -> validate(current).close())
                .rootCause().hasMessageContaining("wrong column type").hasMessageContaining("[version]");
    }

    /**
     * Hibernate 6.6 compares a column's type name only up to its first parenthesis, so to its validation
     * {@code TIMESTAMP(6) WITH TIME ZONE} and {@code TIMESTAMP(6)} look alike, and it checks no fractional precision.
     * Both matter to the {@link java.time.Instant} columns (leases are milliseconds of database time), so they are
     * checked against the database's metadata here.
     */
    @ParameterizedTest
    @EnumSource(ShippedScript.class)
    void theTimestampColumnsKeepTheirTimeZoneAndMicroseconds(ShippedScript script) throws SQLException {
        createTable(script, UnaryOperator.identity());

        assertInstantColumns(current);
    }

    @ParameterizedTest
    @EnumSource(value = ShippedScript.class, names = {"H2", "POSTGRESQL"})
    void aTimestampThatLostItsTimeZoneIsCaught(ShippedScript script) {
        createTable(script, ddl -> ddl.replaceAll("(?m)^(\\s*expires_at\\s+TIMESTAMP\\(6\\)) WITH TIME ZONE", "$1"));

        assertThatThrownBy(() -> assertInstantColumns(current)).hasMessageContaining("expires_at");
    }

    @ParameterizedTest
    @EnumSource(ShippedScript.class)
    void aTimestampThatLostItsMicrosecondsIsCaught(ShippedScript script) {
        createTable(script, ddl -> ddl.replaceAll("(?m)^(\\s*acquired_at\\s+(TIMESTAMP|DATETIME))\\(6\\)", "$1(0)"));

        assertThatThrownBy(() -> assertInstantColumns(current)).hasMessageContaining("acquired_at");
    }

    private static void assertInstantColumns(TestDatabase db) throws SQLException {
        String expected = switch (db.kind()) {
            case H2 -> "TIMESTAMP WITH TIME ZONE";
            case POSTGRESQL -> "timestamptz";
            case MARIADB -> "DATETIME";
        };
        try (Connection c = db.dataSource().getConnection()) {
            DatabaseMetaData meta = c.getMetaData();
            String table = meta.storesUpperCaseIdentifiers() ? "METHOD_LOCK" : "method_lock";
            for (String column : List.of("acquired_at", "expires_at", "updated_at")) {
                try (ResultSet rs = meta.getColumns(c.getCatalog(), c.getSchema(), table,
                        meta.storesUpperCaseIdentifiers() ? column.toUpperCase(Locale.ROOT) : column)) {
                    assertThat(rs.next()).as("column %s exists", column).isTrue();
                    // MariaDB's driver reports no DECIMAL_DIGITS for DATETIME; its size is 19 + 1 + fractional digits
                    int fraction = db.kind() == TestDatabase.Kind.MARIADB
                            ? Math.max(0, rs.getInt("COLUMN_SIZE") - 20) : rs.getInt("DECIMAL_DIGITS");
                    assertThat(rs.getString("TYPE_NAME") + "/" + fraction)
                            .as("type/fractional digits of %s on %s", column, db.kind())
                            .isEqualTo(expected + "/6");
                }
            }
        }
    }

    /** Creates {@code method_lock} from the shipped script, on its server, with the table's DDL edited. */
    private void createTable(ShippedScript script, UnaryOperator<String> editCreateTable) {
        current = databases.get(script);
        List<String> statements = JdbcLockSchema.statements(script.dialect, "method_lock");
        for (String sql : statements) {
            current.execute(sql.startsWith("CREATE TABLE method_lock ") ? checkedEdit(sql, editCreateTable) : sql);
        }
    }

    private static String checkedEdit(String ddl, UnaryOperator<String> edit) {
        String edited = edit.apply(ddl);
        if (edit != UnaryOperator.<String>identity()) {
            assertThat(edited).as("the drift must change the DDL").isNotEqualTo(ddl);
        }
        return edited;
    }

    private static EntityManagerFactory validate(TestDatabase db) {
        return TestPersistenceUnit.create(db.dataSource(), Map.of("hibernate.hbm2ddl.auto", "validate"), MethodLock.class);
    }
}
