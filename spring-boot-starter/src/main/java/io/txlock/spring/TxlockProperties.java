package io.txlock.spring;

import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.jdbc.JdbcDialect;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code txlock.*} properties of the Spring Boot starter.
 *
 * <pre>
 * txlock.strategy=SELECT_FOR_UPDATE
 * txlock.table=method_lock
 * txlock.create-table=true
 * txlock.wait=5s
 * txlock.lease=30s
 * </pre>
 */
@ConfigurationProperties(prefix = "txlock")
public class TxlockProperties {

    /** Whether to configure a LockManager at all. */
    private boolean enabled = true;

    /** How the JDBC provider locks: SELECT_FOR_UPDATE (row locks, waits in the database), OPTIMISTIC_VERSION or UNIQUE_INSERT. */
    private Strategy strategy = Strategy.SELECT_FOR_UPDATE;

    /** The lock table: a plain SQL identifier in the DataSource's default schema. */
    private String table = "method_lock";

    /** The database; detected from the DataSource when not set. */
    private JdbcDialect dialect;

    /** Whether to create the lock table, its indexes and token sequence at startup when the table does not exist. */
    private boolean createTable = false;

    /** How long acquire waits for another holder by default; 0 never waits. */
    private Duration wait = Duration.ofSeconds(30);

    /** How long a LEASE-scoped lock outlives a holder that stopped renewing it (its JVM died), by default. */
    private Duration lease = Duration.ofSeconds(30);

    /** The default scope: AUTO (TRANSACTION inside a Spring-managed transaction, LEASE outside), TRANSACTION or LEASE. */
    private LockScope scope = LockScope.AUTO;

    /** Whether LEASE locks are renewed while their holder lives, by default. */
    private boolean autoRenew = true;

    /** How often the reaper deletes expired lock rows; 0 turns it off. */
    private Duration reaperPeriod = Duration.ofMinutes(1);

    /** The host name written as lock owner; the local host name when not set. */
    private String ownerHost;

    /** Whether to record the manager's metrics in the application's MeterRegistry, when it has one. */
    private boolean metrics = true;

    /** Whether to record observations of acquires, holdings and releases in the application's ObservationRegistry, when it has one. */
    private boolean observations = true;

    /** Creates the properties with their defaults. */
    public TxlockProperties() {
    }

    /** @return whether to configure a LockManager at all */
    public boolean isEnabled() {
        return enabled;
    }

    /** @param enabled whether to configure a LockManager at all */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** @return the JDBC provider's strategy */
    public Strategy getStrategy() {
        return strategy;
    }

    /** @param strategy the JDBC provider's strategy */
    public void setStrategy(Strategy strategy) {
        this.strategy = strategy;
    }

    /** @return the lock table */
    public String getTable() {
        return table;
    }

    /** @param table the lock table */
    public void setTable(String table) {
        this.table = table;
    }

    /** @return the database dialect, or null to detect it */
    public JdbcDialect getDialect() {
        return dialect;
    }

    /** @param dialect the database dialect, or null to detect it */
    public void setDialect(JdbcDialect dialect) {
        this.dialect = dialect;
    }

    /** @return whether to create the lock table at startup when it does not exist */
    public boolean isCreateTable() {
        return createTable;
    }

    /** @param createTable whether to create the lock table at startup when it does not exist */
    public void setCreateTable(boolean createTable) {
        this.createTable = createTable;
    }

    /** @return the default wait */
    public Duration getWait() {
        return wait;
    }

    /** @param wait the default wait */
    public void setWait(Duration wait) {
        this.wait = wait;
    }

    /** @return the default lease */
    public Duration getLease() {
        return lease;
    }

    /** @param lease the default lease */
    public void setLease(Duration lease) {
        this.lease = lease;
    }

    /** @return the default scope */
    public LockScope getScope() {
        return scope;
    }

    /** @param scope the default scope */
    public void setScope(LockScope scope) {
        this.scope = scope;
    }

    /** @return whether LEASE locks are renewed by default */
    public boolean isAutoRenew() {
        return autoRenew;
    }

    /** @param autoRenew whether LEASE locks are renewed by default */
    public void setAutoRenew(boolean autoRenew) {
        this.autoRenew = autoRenew;
    }

    /** @return how often the reaper runs; zero for never */
    public Duration getReaperPeriod() {
        return reaperPeriod;
    }

    /** @param reaperPeriod how often the reaper runs; zero for never */
    public void setReaperPeriod(Duration reaperPeriod) {
        this.reaperPeriod = reaperPeriod;
    }

    /** @return the owner host name, or null for the local host name */
    public String getOwnerHost() {
        return ownerHost;
    }

    /** @param ownerHost the owner host name, or null for the local host name */
    public void setOwnerHost(String ownerHost) {
        this.ownerHost = ownerHost;
    }

    /** @return whether to record metrics in the application's MeterRegistry */
    public boolean isMetrics() {
        return metrics;
    }

    /** @param metrics whether to record metrics in the application's MeterRegistry */
    public void setMetrics(boolean metrics) {
        this.metrics = metrics;
    }

    /** @return whether to record observations in the application's ObservationRegistry */
    public boolean isObservations() {
        return observations;
    }

    /** @param observations whether to record observations in the application's ObservationRegistry */
    public void setObservations(boolean observations) {
        this.observations = observations;
    }
}
