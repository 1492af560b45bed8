package io.txlock.jdbc;

/**
 * What every builder over a lock table sets: the table and the database ({@link JdbcLockProvider.Builder},
 * {@link JdbcClaims.Builder}, {@code JpaLockProvider.Builder}).
 *
 * @param <B> the builder
 */
public abstract class LockTableBuilder<B extends LockTableBuilder<B>> {

    private String table = "method_lock";
    private JdbcDialect dialect;

    /** For the builders of txlock's providers. */
    protected LockTableBuilder() {
    }

    /**
     * @param table the lock table (for the JPA provider, the table {@code MethodLock} is mapped to by its
     *     {@code @Table} or an {@code orm.xml} override; for claims, a table made from the lock table's DDL), a plain
     *     identifier; {@code method_lock} by default
     * @return this builder
     */
    public final B table(String table) {
        this.table = JdbcLockProvider.validTable(table);
        return self();
    }

    /**
     * @param dialect the database; detected when it is first reached by default
     * @return this builder
     */
    public final B dialect(JdbcDialect dialect) {
        if (dialect == null) {
            throw new IllegalArgumentException("dialect must not be null; leave it unset to detect it");
        }
        this.dialect = dialect;
        return self();
    }

    /** @return the lock table set */
    public final String lockTable() {
        return table;
    }

    /** @return the database set, or null to detect it */
    public final JdbcDialect lockDialect() {
        return dialect;
    }

    @SuppressWarnings("unchecked")
    final B self() {
        return (B) this;
    }
}
