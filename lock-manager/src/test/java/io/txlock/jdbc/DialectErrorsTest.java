package io.txlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each dialect's table of errors, with the SQLStates and vendor codes the drivers really report (see the stack
 * notes): "held by another transaction", "duplicate key", and "the database rolled back the whole transaction".
 * The two MySQL drivers report the same failure on MariaDB with different SQLStates.
 */
class DialectErrorsTest {

    /** What a dialect must make of one error. */
    private record Case(String what, String sqlState, int code, boolean lockUnavailable, boolean duplicateKey,
            boolean abortsTransaction) {
    }

    private static final List<Case> POSTGRESQL = List.of(
            new Case("lock_timeout or NOWAIT", "55P03", 0, true, false, false),
            new Case("deadlock victim (in a savepoint: only the statement is undone)", "40P01", 0, true, false, false),
            new Case("serialization failure", "40001", 0, true, false, false),
            new Case("unique violation", "23505", 0, false, true, false),
            new Case("connection failure", "08006", 0, false, false, false),
            new Case("statement_timeout (not a lock wait of ours)", "57014", 0, false, false, false),
            new Case("undefined table", "42P01", 0, false, false, false));

    private static final List<Case> MYSQL_AND_MARIADB = List.of(
            new Case("lock wait timeout / NOWAIT, MariaDB driver", "HY000", 1205, true, false, false),
            new Case("lock wait timeout / NOWAIT, MySQL driver", "40001", 1205, true, false, false),
            new Case("deadlock victim, MariaDB driver", "40001", 1213, true, false, true),
            new Case("deadlock victim, MySQL driver", "40001", 1213, true, false, true),
            new Case("MySQL 8 NOWAIT", "HY000", 3572, true, false, false),
            new Case("MariaDB max_statement_time, the lock-wait bound of the MariaDB dialect", "70100", 1969, true, false, false),
            new Case("duplicate key", "23000", 1062, false, true, false),
            new Case("connection refused", "08000", 0, false, false, false),
            new Case("server gone away", "08S01", 2006, false, false, false),
            new Case("no such table", "42S02", 1146, false, false, false));

    private static final List<Case> H2 = List.of(
            new Case("lock timeout / NOWAIT", "HYT00", 50200, true, false, false),
            new Case("deadlock victim (H2 rolls back the transaction)", "40001", 40001, true, false, true),
            new Case("concurrent update", "90131", 90131, true, false, false),
            new Case("duplicate key", "23505", 23505, false, true, false),
            new Case("connection broken", "08006", 90067, false, false, false),
            new Case("table not found", "42S02", 42102, false, false, false));

    @Test
    void postgresql() {
        assertClassifies(new PostgresStatements("method_lock"), POSTGRESQL);
    }

    @Test
    void mysql() {
        assertClassifies(new MySqlStatements("method_lock"), MYSQL_AND_MARIADB);
    }

    @Test
    void mariadb() {
        assertClassifies(new MariaDbStatements("method_lock"), MYSQL_AND_MARIADB);
    }

    @Test
    void h2() {
        assertClassifies(new H2Statements("method_lock"), H2);
    }

    private static void assertClassifies(Statements st, List<Case> cases) {
        for (Case c : cases) {
            SQLException e = new SQLException(c.what(), c.sqlState(), c.code());
            String shown = c.what() + " [SQLState " + c.sqlState() + ", code " + c.code() + "] by " + st.getClass().getSimpleName();
            assertThat(st.lockUnavailable(e)).as("lockUnavailable: %s", shown).isEqualTo(c.lockUnavailable());
            assertThat(st.duplicateKey(e)).as("duplicateKey: %s", shown).isEqualTo(c.duplicateKey());
            assertThat(st.abortsTransaction(e)).as("abortsTransaction: %s", shown).isEqualTo(c.abortsTransaction());
        }
    }
}
