package io.txlock.spring;

import io.txlock.LockBackendException;
import io.txlock.jdbc.JdbcDialect;
import io.txlock.jdbc.JdbcLockProvider;
import io.txlock.jdbc.JdbcLockSchema;
import io.txlock.spi.LockProvider;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;

/**
 * A {@link JdbcLockProvider} over the application's {@link DataSource}, unless the application declares a
 * {@link LockProvider} bean of its own (Redis, ZooKeeper, another database). Its TRANSACTION-scoped locks run on the
 * connection of the caller's Spring-managed transaction (through {@link TransactionAwareDataSourceProxy}), so the
 * lock and the business rows commit or roll back together; LEASE locks use connections of their own.
 */
@AutoConfiguration(after = DataSourceAutoConfiguration.class)
@ConditionalOnProperty(prefix = "txlock", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnBean(DataSource.class)
@EnableConfigurationProperties(TxlockProperties.class)
public class TxlockJdbcAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(TxlockJdbcAutoConfiguration.class);

    /** For Spring. */
    public TxlockJdbcAutoConfiguration() {
    }

    /**
     * @param dataSource the application's datasource
     * @param properties {@code txlock.*}
     * @return the provider; the lock manager closes it
     * @throws IllegalArgumentException if a property is invalid or the lock table is missing (and
     *     {@code txlock.create-table} is off), saying what to fix
     */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean(LockProvider.class)
    @ConditionalOnSingleCandidate(DataSource.class)
    public JdbcLockProvider txlockLockProvider(DataSource dataSource, TxlockProperties properties) {
        DataSource target = dataSource instanceof TransactionAwareDataSourceProxy proxy ? proxy.getTargetDataSource() : dataSource;
        if (properties.isCreateTable()) {
            createTableIfAbsent(target, properties.getDialect(), properties.getTable());
        }
        JdbcLockProvider.Builder builder = JdbcLockProvider.builder(new TransactionAwareDataSourceProxy(target))
                .leaseDataSource(target);
        TxlockAutoConfiguration.property("txlock.strategy", () -> builder.strategy(properties.getStrategy()));
        TxlockAutoConfiguration.property("txlock.table", () -> builder.table(properties.getTable()));
        TxlockAutoConfiguration.property("txlock.reaper-period", () -> builder.reaperPeriod(properties.getReaperPeriod()));
        if (properties.getDialect() != null) {
            builder.dialect(properties.getDialect());
        }
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + ". With the Spring Boot starter: set txlock.create-table=true"
                    + " to create it at startup, or txlock.table to name an existing lock table", e);
        }
    }

    /** Creates the table unless it exists; see {@link JdbcLockSchema#createIfAbsent(DataSource, JdbcDialect, String)}. */
    static void createTableIfAbsent(DataSource dataSource, JdbcDialect configured, String table) {
        try {
            JdbcDialect dialect = JdbcLockSchema.createIfAbsent(dataSource, configured, table);
            log.info("lock table {} ({}) is there, as txlock.create-table=true asked", table, dialect);
        } catch (LockBackendException e) {
            throw new LockBackendException("txlock.create-table: " + e.getMessage(), e);
        }
    }
}
