package io.txlock.jdbc;

import io.txlock.LockInfo;
import io.txlock.Strategy;
import io.txlock.spi.LockAdministration;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The operator's view of a lock table; its statements are each dialect's ({@code admin*} of {@link Statements}),
 * with {@code FOR UPDATE SKIP LOCKED} (H2, PostgreSQL 9.5+, MariaDB 10.6+, MySQL 8). Names are bound parameters; a
 * prefix is matched with {@code LIKE … ESCAPE '!'}, its wildcards escaped.
 *
 * <p>The row strategies record their holder in the row: listing reads the HELD rows whose lease has not run out, and a
 * forced release deletes the row if it still carries the token, as the reaper deletes an expired one. A
 * {@code SELECT_FOR_UPDATE} lock is a row lock of an open transaction and writes nothing: listing finds the rows
 * locked now (those a {@code FOR UPDATE SKIP LOCKED} read skips; the others it locks until its transaction ends, a
 * moment, so an acquire of one of them then waits that long), with no owner or token to show, and a forced release is
 * refused, since only the end of the holder's transaction frees a row lock.
 */
final class JdbcLockAdministration implements LockAdministration {

    private final JdbcAccess db;
    private final Strategy strategy;

    JdbcLockAdministration(JdbcAccess db, Strategy strategy) {
        this.db = db;
        this.strategy = strategy;
    }

    @Override
    public List<LockInfo> list(String prefix, int limit) {
        Statements st = db.statements();
        String pattern = likePrefix(prefix);
        if (strategy == Strategy.SELECT_FOR_UPDATE) {
            return db.inOwnTransaction(c -> {
                Set<String> locked = names(c, st.adminNames(), pattern);
                locked.removeAll(names(c, st.adminUnlockedNames(), pattern));
                List<LockInfo> held = new ArrayList<>();
                for (String name : locked) {
                    if (held.size() == limit) {
                        break;
                    }
                    held.add(new LockInfo(name, null, null, 0, null, null, 1));
                }
                return held;
            }, "list the locks of '" + prefix + "'");
        }
        return db.autoCommitted(c -> {
            List<LockInfo> held = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(st.adminHeld())) {
                ps.setString(1, pattern);
                ps.setMaxRows(limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        held.add(new LockInfo(rs.getString(1), rs.getString(3), rs.getString(4), rs.getLong(2),
                                st.instant(rs, 6), st.instant(rs, 7), Math.max(1, rs.getInt(5))));
                    }
                }
            }
            return held;
        }, "list the locks of '" + prefix + "'");
    }

    @Override
    public boolean forceRelease(String name, long fencingToken) {
        if (strategy == Strategy.SELECT_FOR_UPDATE) {
            throw new UnsupportedOperationException("lock '" + name + "' of " + db.table() + " is a SELECT_FOR_UPDATE row lock:"
                    + " it belongs to the holder's open database transaction and writes nothing, so txlock can neither tell"
                    + " whose it is nor free it without ending that transaction. Stop the holder (its lock ends with its"
                    + " connection), or end its database session: on PostgreSQL find it in pg_locks / pg_stat_activity and"
                    + " call pg_terminate_backend(pid), on MariaDB/MySQL find it in information_schema.INNODB_TRX and KILL it."
                    + " Locks of OPTIMISTIC_VERSION and UNIQUE_INSERT can be force-released");
        }
        String t = db.table();
        Statements st = db.statements();
        return db.inOwnTransaction(c -> {
            Long version = version(c, st.adminHeldVersionUnlocked(), name);
            if (version == null) {
                Long locked = version(c, st.adminHeldVersion(), name);
                if (locked != null && locked == fencingToken) {
                    throw new UnsupportedOperationException("lock '" + name + "' token " + fencingToken + " of " + t
                            + " is held in an open database transaction (TRANSACTION scope), which locks its row: it ends"
                            + " when that transaction commits or rolls back. End the holder's transaction or its session");
                }
                return false;
            }
            if (version != fencingToken) {
                return false;
            }
            try (PreparedStatement ps = c.prepareStatement(st.adminDelete())) {
                ps.setString(1, name);
                ps.setLong(2, fencingToken);
                return ps.executeUpdate() == 1;
            }
        }, "force-release '" + name + "'");
    }

    private static Long version(Connection c, String sql, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : null;
            }
        }
    }

    private static Set<String> names(Connection c, String sql, String pattern) throws SQLException {
        Set<String> names = new LinkedHashSet<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, pattern);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
            }
        }
        return names;
    }

    /** @return a LIKE pattern for names starting with {@code prefix}, its {@code % _ !} escaped with {@code !} */
    static String likePrefix(String prefix) {
        return prefix.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%";
    }
}
