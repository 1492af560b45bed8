package io.txlock.spi;

import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Finds the calling thread's transaction. The JTA implementation ({@code io.txlock.jta}) is discovered
 * through {@link ServiceLoader} when {@code jakarta.transaction} is on the class path.
 */
public interface TransactionSupport {

    /** @return the calling thread's active transaction, if any */
    Optional<CallerTransaction> current();

    /** @return {@code true} if this support can find transactions in this environment at all */
    default boolean available() {
        return true;
    }

    /** @return a support that never finds a transaction: AUTO always means LEASE */
    static TransactionSupport none() {
        return NoTransactions.INSTANCE;
    }

    /**
     * @return the first {@link #available() available} support registered with {@link ServiceLoader}, or
     *     {@link #none()}
     */
    static TransactionSupport discover() {
        java.util.Iterator<TransactionSupport> found =
                ServiceLoader.load(TransactionSupport.class, TransactionSupport.class.getClassLoader()).iterator();
        for (int tries = 0; tries < 32; tries++) {
            try {
                if (!found.hasNext()) {
                    return none();
                }
                TransactionSupport support = found.next();
                if (support.available()) {
                    return support;
                }
            } catch (java.util.ServiceConfigurationError | LinkageError missingApi) {
                // an implementation whose API (e.g. jakarta.transaction) is not on the class path: skip it
            }
        }
        return none();
    }

    /** The support that never finds a transaction. */
    enum NoTransactions implements TransactionSupport {
        /** The only instance. */
        INSTANCE;

        @Override
        public Optional<CallerTransaction> current() {
            return Optional.empty();
        }

        @Override
        public String toString() {
            return "no transaction support";
        }
    }
}
