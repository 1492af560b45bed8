package io.txlock.bench;

import io.txlock.jdbc.JdbcDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** A peer on the backend's database, in a lock table of its own, created before its first run. */
abstract class TablePeer implements Peer {

    final DataSource pool;
    final JdbcDialect dialect;
    private final String name;
    private boolean tableCreated;

    TablePeer(String name, DataSource pool, JdbcDialect dialect) {
        this.name = name;
        this.pool = pool;
        this.dialect = dialect;
    }

    @Override
    public final String name() {
        return name;
    }

    /** @return the CREATE TABLE statement of the peer's lock table on {@link #dialect} */
    abstract String lockTableDdl();

    /** Creates the lock table, once. */
    final synchronized void createTable() throws SQLException {
        if (tableCreated) {
            return;
        }
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute(lockTableDdl());
        }
        tableCreated = true;
    }
}
