package io.txlock.jdbc;

import io.txlock.LockBackendException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The lock table's DDL, from the {@code txlock-sql} artifact, for a dialect and a table name. For
 * applications that do not run migrations with Flyway or Liquibase (which can use the scripts as they are),
 * and for tests.
 */
public final class JdbcLockSchema {

    /** The version-1 script of every dialect. */
    public static final String SCRIPT = "V1__create_method_lock.sql";

    private JdbcLockSchema() {
    }

    /**
     * @param dialect the database
     * @param table the table name; its sequence, token table and indexes are named after it
     * @return the statements that create the table, without terminating semicolons
     */
    public static List<String> statements(JdbcDialect dialect, String table) {
        String valid = JdbcLockProvider.validTable(table);
        String script = read(dialect.scriptLocation() + "/" + SCRIPT);
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : script.split("\n")) {
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("--")) {
                continue;
            }
            current.append(line).append('\n');
            if (trimmed.endsWith(";")) {
                String sql = current.toString().strip();
                statements.add(sql.substring(0, sql.length() - 1).replaceAll("\\bmethod_lock", valid));
                current.setLength(0);
            }
        }
        return statements;
    }

    /**
     * Creates the table, its indexes and its token sequence.
     *
     * @param dataSource where
     * @param dialect the database
     * @param table the table name
     * @throws LockBackendException if a statement fails (for example because the table exists)
     * @throws IllegalArgumentException if {@code dialect} does not match the database
     */
    public static void create(DataSource dataSource, JdbcDialect dialect, String table) {
        List<String> ddl = statements(dialect, table);
        try (Connection c = JdbcAccess.connect(dataSource); Statement s = c.createStatement()) {
            dialect.requireMatches(c.getMetaData());
            for (String sql : ddl) {
                s.execute(sql);
            }
            if (!c.getAutoCommit()) {
                c.commit();
            }
        } catch (SQLException e) {
            throw new LockBackendException("could not create lock table " + table + ": " + e.getMessage(), e);
        }
    }

    /**
     * Creates the lock table {@code method_lock} unless it exists, in the dialect of the database it finds.
     *
     * @param dataSource where
     * @return the dialect found
     * @throws LockBackendException if the database cannot be reached or refuses the DDL
     */
    public static JdbcDialect createIfAbsent(DataSource dataSource) {
        return createIfAbsent(dataSource, "method_lock");
    }

    /**
     * Creates the lock table unless it exists, in the dialect of the database it finds.
     *
     * @param dataSource where
     * @param table the table name
     * @return the dialect found
     * @throws LockBackendException if the database cannot be reached or refuses the DDL
     * @throws IllegalArgumentException if the table name is not a plain identifier, or the database not supported
     */
    public static JdbcDialect createIfAbsent(DataSource dataSource, String table) {
        return createIfAbsent(dataSource, null, table);
    }

    /**
     * Creates the lock table unless it exists, in one transaction: on PostgreSQL, whose DDL is transactional, no
     * node ever sees the table without its token sequence (MySQL, MariaDB and H2 commit each DDL statement at once).
     * Safe on several nodes at once: a node that loses the race to create it finds it created.
     *
     * @param dataSource where
     * @param dialect the database's, or null to find it
     * @param table the table name
     * @return the dialect
     * @throws LockBackendException if the database cannot be reached or refuses the DDL
     * @throws IllegalArgumentException if the table name is not a plain identifier, the database is not supported, or
     *     {@code dialect} does not match it
     */
    public static JdbcDialect createIfAbsent(DataSource dataSource, JdbcDialect dialect, String table) {
        JdbcLockProvider.validTable(table);
        try (Connection c = JdbcAccess.connect(dataSource)) {
            JdbcDialect found = dialect != null ? dialect.requireMatches(c.getMetaData()) : JdbcDialect.detect(c.getMetaData());
            if (exists(c, table)) {
                return found;
            }
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                for (String sql : statements(found, table)) {
                    s.execute(sql);
                }
                c.commit();
            } catch (SQLException e) {
                JdbcAccess.rollbackQuietly(c);
                if (!exists(c, table)) {
                    throw e;
                }
            } finally {
                c.setAutoCommit(autoCommit);
            }
            return found;
        } catch (SQLException e) {
            throw new LockBackendException("could not create lock table " + table + ": " + e.getMessage(), e);
        }
    }

    private static boolean exists(Connection c, String table) throws SQLException {
        for (String name : new String[] {table, table.toUpperCase(java.util.Locale.ROOT), table.toLowerCase(java.util.Locale.ROOT)}) {
            try (java.sql.ResultSet rs = c.getMetaData().getTables(c.getCatalog(), c.getSchema(), name, new String[] {"TABLE", "BASE TABLE"})) {
                if (rs.next()) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String read(String resource) {
        try (InputStream in = JdbcLockSchema.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing: add the txlock-sql artifact to the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
