package io.txlock.jta;

import io.txlock.spi.CallerTransaction;
import io.txlock.spi.TransactionSupport;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Finds the caller's JTA transaction through {@link TransactionSynchronizationRegistry}: from CDI first, then
 * JNDI ({@code java:comp/TransactionSynchronizationRegistry}). Locks in {@link io.txlock.LockScope#TRANSACTION}
 * scope are released from an interposed synchronization, after commit and after rollback, whatever the
 * provider. Discovered automatically by {@link io.txlock.LockManager#builder}; outside a container, pass
 * {@link #of(TransactionSynchronizationRegistry)} to the builder's {@code transactions(…)}.
 */
public final class JtaTransactionSupport implements TransactionSupport {

    /** Where Jakarta EE containers bind the registry. */
    public static final String JNDI_NAME = "java:comp/TransactionSynchronizationRegistry";

    private final Supplier<TransactionSynchronizationRegistry> lookup;
    private volatile TransactionSynchronizationRegistry registry;

    /** Looks the registry up in CDI, then JNDI, on first use. For {@link java.util.ServiceLoader}. */
    public JtaTransactionSupport() {
        this.lookup = JtaTransactionSupport::lookUp;
    }

    private JtaTransactionSupport(TransactionSynchronizationRegistry registry) {
        this.lookup = () -> registry;
        this.registry = registry;
    }

    /**
     * @param registry the transaction manager's registry, e.g. Narayana's {@code TransactionSynchronizationRegistryImple}
     * @return a support bound to that registry
     */
    public static JtaTransactionSupport of(TransactionSynchronizationRegistry registry) {
        if (registry == null) {
            throw new IllegalArgumentException("registry must not be null");
        }
        return new JtaTransactionSupport(registry);
    }

    @Override
    public boolean available() {
        return registry() != null;
    }

    @Override
    public Optional<CallerTransaction> current() {
        TransactionSynchronizationRegistry tsr = registry();
        if (tsr == null) {
            return Optional.empty();
        }
        int status = tsr.getTransactionStatus();
        if (status != Status.STATUS_ACTIVE && status != Status.STATUS_MARKED_ROLLBACK) {
            return Optional.empty();
        }
        return Optional.of(new JtaTransaction(tsr, tsr.getTransactionKey()));
    }

    private TransactionSynchronizationRegistry registry() {
        TransactionSynchronizationRegistry r = registry;
        if (r == null) {
            r = lookup.get();
            registry = r;
        }
        return r;
    }

    private static TransactionSynchronizationRegistry lookUp() {
        try {
            return jakarta.enterprise.inject.spi.CDI.current().select(TransactionSynchronizationRegistry.class).get();
        } catch (LinkageError | RuntimeException noCdi) {
            // no CDI API, no container, or the registry is not a bean in this deployment
        }
        try {
            return (TransactionSynchronizationRegistry) new javax.naming.InitialContext().lookup(JNDI_NAME);
        } catch (javax.naming.NamingException | RuntimeException noJndi) {
            return null;
        }
    }

    @Override
    public String toString() {
        return "JTA transaction support (" + (registry != null ? registry.getClass().getSimpleName() : "no registry found") + ")";
    }

    private record JtaTransaction(TransactionSynchronizationRegistry tsr, Object key) implements CallerTransaction {

        @Override
        public void onCompletion(Runnable beforeCompletion, Consumer<Boolean> afterCompletion) {
            tsr.registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {
                    beforeCompletion.run();
                }

                @Override
                public void afterCompletion(int status) {
                    afterCompletion.accept(status == Status.STATUS_COMMITTED);
                }
            });
        }

        @Override
        public void setRollbackOnly() {
            tsr.setRollbackOnly();
        }
    }
}
