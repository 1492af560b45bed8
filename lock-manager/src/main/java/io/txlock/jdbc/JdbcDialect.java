package io.txlock.jdbc;

import io.txlock.Strategy;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.EnumSet;
import java.util.Set;

/** The databases the JDBC provider speaks. Detected from the connection unless set on the builder. */
public enum JdbcDialect {
    /** H2 2.x (MVStore). */
    H2("h2"),
    /** PostgreSQL 12 or later. */
    POSTGRESQL("postgresql"),
    /** MySQL 8 (InnoDB). Lock waits are whole seconds there ({@code innodb_lock_wait_timeout}). */
    MYSQL("mysql"),
    /** MariaDB 10.6 or later (InnoDB), with either the MariaDB or the MySQL driver. Tokens from a sequence. */
    MARIADB("mariadb");

    private final String scriptDirectory;

    JdbcDialect(String scriptDirectory) {
        this.scriptDirectory = scriptDirectory;
    }

    /** @return the strategies this database runs: every one but {@link Strategy#ADVISORY} on H2, which has no advisory locks */
    public Set<Strategy> strategies() {
        return java.util.Collections.unmodifiableSet(
                this == H2 ? EnumSet.complementOf(EnumSet.of(Strategy.ADVISORY)) : EnumSet.allOf(Strategy.class));
    }

    /** @return the classpath folder of this dialect's DDL in the {@code txlock-sql} artifact */
    public String scriptLocation() {
        return "io/txlock/sql/" + scriptDirectory;
    }

    /**
     * @param metaData of a connection to the database this dialect was given for
     * @return this
     * @throws IllegalArgumentException if the database is of another kind (MySQL's and MariaDB's dialects work on
     *     either)
     */
    JdbcDialect requireMatches(DatabaseMetaData metaData) throws SQLException {
        JdbcDialect found = detect(metaData);
        boolean mysqlFamily = (this == MYSQL || this == MARIADB) && (found == MYSQL || found == MARIADB);
        if (found != this && !mysqlFamily) {
            throw new IllegalArgumentException("dialect " + this + " does not match the database, which is "
                    + metaData.getDatabaseProductName() + " " + metaData.getDatabaseProductVersion() + ": give JdbcDialect." + found
                    + ", or give no dialect and let txlock detect it");
        }
        return this;
    }

    /**
     * @param metaData a connection's metadata
     * @return the dialect of the database it is connected to
     * @throws SQLException if the metadata cannot be read
     * @throws IllegalArgumentException if the database is not one of these
     */
    public static JdbcDialect detect(DatabaseMetaData metaData) throws SQLException {
        String product = metaData.getDatabaseProductName();
        String version = metaData.getDatabaseProductVersion();
        if (product.equalsIgnoreCase("H2")) {
            return H2;
        }
        if (product.equalsIgnoreCase("PostgreSQL")) {
            return POSTGRESQL;
        }
        if (product.equalsIgnoreCase("MariaDB") || version.contains("MariaDB")) {
            return MARIADB;
        }
        if (product.equalsIgnoreCase("MySQL")) {
            return MYSQL;
        }
        throw new IllegalArgumentException("database '" + product + " " + version
                + "' is not supported: txlock's JDBC provider speaks H2, PostgreSQL, MySQL and MariaDB");
    }
}
