/**
 * The lock table's DDL, one script per database at {@code io/txlock/sql/<database>/V1__create_method_lock.sql}: a
 * module of resources only, its script packages open, so that {@code io.txlock} (which requires it) and Flyway read
 * them through the class loader from the module path as from the class path.
 */
module io.txlock.sql {
    opens io.txlock.sql.h2;
    opens io.txlock.sql.mariadb;
    opens io.txlock.sql.mysql;
    opens io.txlock.sql.postgresql;
}
