package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The raw floor's sessions give their connections back as the pool handed them out: a blocking row lock waits up
 * to 60 s, and the runs that take those connections next (orders) must wait only the statement lock wait again.
 * Runs on embedded H2 and on the machine's PostgreSQL and MariaDB (both drivers), each in a fresh namespace.
 */
class JdbcRawLocksTest {

    private static final int POOL = 3;

    @ParameterizedTest
    @EnumSource(value = BackendKind.class, names = {"H2", "POSTGRESQL", "MARIADB", "MYSQL"})
    void aClosedRowLockSessionLeavesThePoolsLockWaitAsItFoundIt(BackendKind kind) throws Exception {
        try (JdbcBackend backend = JdbcBackend.open(BackendSpec.defaults(kind), POOL, 2, false);
                RawLocks raw = backend.openRaw("SELECT_FOR_UPDATE").orElseThrow()) {
            raw.prepare(List.of("a"));
            List<RawLocks.Session> sessions = new ArrayList<>();
            for (int i = 0; i < POOL; i++) {
                sessions.add(raw.blockingSession());
            }
            sessions.get(0).lock("a");
            sessions.get(0).unlock();
            sessions.forEach(RawLocks.Session::close);

            List<Connection> all = new ArrayList<>();
            try {
                for (int i = 0; i < POOL; i++) {
                    all.add(backend.pool().getConnection());
                }
                for (Connection c : all) {
                    assertThat(lockWaitMillis(c, kind)).as("%s session lock wait", kind)
                            .isEqualTo(JdbcBackend.STATEMENT_LOCK_WAIT.toMillis());
                }
            } finally {
                for (Connection c : all) {
                    c.close();
                }
            }
        }
    }

    private static long lockWaitMillis(Connection c, BackendKind kind) throws SQLException {
        String sql = switch (kind) {
            case H2 -> "SELECT LOCK_TIMEOUT()";
            case POSTGRESQL -> "SELECT EXTRACT(EPOCH FROM current_setting('lock_timeout')::interval) * 1000";
            default -> "SELECT @@SESSION.innodb_lock_wait_timeout * 1000";
        };
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
