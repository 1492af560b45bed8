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
 * provider. Discovered automatically by {@link io.txlock.LockManager#builder} whenever {@code jakarta.transaction} is
 * on the class path; outside a container, pass {@link #of(TransactionSynchronizationRegistry)} to the builder's
 * {@code transactions(…)}.
 */
public final class JtaTransactionSupport implements TransactionSupport {

    /** Where Jakarta EE containers bind the registry. */
    public static final String JNDI_NAME = "java:comp/TransactionSynchronizationRegistry";

    /** How long a thread whose lookup found no registry waits before it looks again. */
    private static final long RETRY_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);

    private final Supplier<TransactionSynchronizationRegistry> lookup;
    private volatile TransactionSynchronizationRegistry registry;
    /** When the calling thread last looked in vain (System.nanoTime), while no registry has been found. */
    private final ThreadLocal<long[]> lastMiss = new ThreadLocal<>();

    /**
     * Looks the registry up in CDI, then JNDI, when a lock is first taken, on the taking thread: a manager built on
     * a thread without the container's naming context (a plain executor) still finds it once a container thread
     * locks. Until one is found, a thread looks again at most once a second. For {@link java.util.ServiceLoader}.
     */
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
        if (r != null) {
            return r;
        }
        long[] missed = lastMiss.get();
        long now = System.nanoTime();
        if (missed != null && now - missed[0] < RETRY_NANOS) {
            return null;
        }
        r = lookup.get();
        if (r != null) {
            registry = r;
            lastMiss.remove();
        } else if (missed == null) {
            lastMiss.set(new long[] {now});
        } else {
            missed[0] = now;
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
        return "JTA transaction support (" + (registry != null ? registry.getClass().getSimpleName()
                : "no TransactionSynchronizationRegistry found yet in CDI or at " + JNDI_NAME) + ")";
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
