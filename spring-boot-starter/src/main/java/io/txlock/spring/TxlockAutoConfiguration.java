package io.txlock.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.micrometer.MicrometerLockMetrics;
import io.txlock.micrometer.MicrometerLockObservations;
import io.txlock.spi.LockProvider;
import java.util.function.Supplier;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The application's {@link LockManager}: over the {@link LockProvider} bean (by default the JDBC provider over the
 * application's DataSource, from {@link TxlockJdbcAutoConfiguration}), with the {@code txlock.*} defaults, bound to
 * Spring-managed transactions ({@link SpringTransactionSupport}), with metrics in the application's Micrometer
 * {@code MeterRegistry}, observations in its {@code ObservationRegistry} and a {@code txlock} Actuator health indicator
 * when those are present.
 */
@AutoConfiguration(after = {TxlockJdbcAutoConfiguration.class, TransactionAutoConfiguration.class})
@ConditionalOnProperty(prefix = "txlock", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnBean(LockProvider.class)
@EnableConfigurationProperties(TxlockProperties.class)
public class TxlockAutoConfiguration {

    /** For Spring. */
    public TxlockAutoConfiguration() {
    }

    /** @return the binding of locks to Spring-managed transactions */
    @Bean
    @ConditionalOnMissingBean
    public SpringTransactionSupport txlockTransactionSupport() {
        return new SpringTransactionSupport();
    }

    /**
     * @param provider the backend
     * @param properties {@code txlock.*}
     * @param transactions the transaction binding
     * @param customizers applied last, in order
     * @return the manager; closed with the application context (it releases what it still holds)
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public LockManager txlockLockManager(LockProvider provider, TxlockProperties properties, SpringTransactionSupport transactions,
            ObjectProvider<LockManagerBuilderCustomizer> customizers) {
        LockManager.Builder builder = LockManager.builder(provider).transactions(transactions);
        LockOptions waits = property("txlock.wait", () -> LockOptions.defaults().withWait(properties.getWait()));
        LockOptions leases = property("txlock.lease", () -> waits.withLease(properties.getLease()));
        LockOptions scoped = property("txlock.scope", () -> leases.withScope(properties.getScope()));
        builder.defaults(scoped.withAutoRenew(properties.isAutoRenew()));
        if (properties.getOwnerHost() != null) {
            property("txlock.owner-host", () -> builder.ownerHost(properties.getOwnerHost()));
        }
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }

    /** Metrics in the application's registry, when Micrometer is on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    @ConditionalOnProperty(prefix = "txlock", name = "metrics", havingValue = "true", matchIfMissing = true)
    static class Metrics {

        @Bean
        LockManagerBuilderCustomizer txlockMetrics(ObjectProvider<MeterRegistry> registry, LockProvider provider) {
            return builder -> registry.ifUnique(r -> builder.metrics(MicrometerLockMetrics.of(r, provider)));
        }
    }

    /**
     * Observations of acquires, holdings and releases in the application's {@code ObservationRegistry} (Actuator makes
     * one; with Micrometer Tracing they become spans), when it has one.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ObservationRegistry.class)
    @ConditionalOnProperty(prefix = "txlock", name = "observations", havingValue = "true", matchIfMissing = true)
    static class Observations {

        @Bean
        LockManagerBuilderCustomizer txlockObservations(ObjectProvider<ObservationRegistry> registry, LockProvider provider) {
            return builder -> registry.ifUnique(r -> builder.metrics(MicrometerLockObservations.of(r, provider)));
        }
    }

    /** The {@code txlock} health indicator, when Actuator is on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
    @ConditionalOnEnabledHealthIndicator("txlock")
    static class Health {

        @Bean
        @ConditionalOnMissingBean(name = "txlockHealthIndicator")
        TxlockHealthIndicator txlockHealthIndicator(LockManager locks, LockProvider provider) {
            return new TxlockHealthIndicator(locks, provider);
        }
    }

    /** Runs a builder step, naming the property to fix when it refuses a value. */
    static <T> T property(String name, Supplier<T> step) {
        try {
            return step.get();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid " + name + ": " + e.getMessage(), e);
        }
    }
}
