package io.txlock.jta;

import com.arjuna.ats.internal.jta.transaction.arjunacore.TransactionSynchronizationRegistryImple;
import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import io.agroal.narayana.NarayanaTransactionIntegration;
import io.txlock.testkit.TestDatabase;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Hashtable;
import java.util.concurrent.Callable;
import javax.naming.Context;
import javax.naming.NameNotFoundException;
import javax.naming.spi.InitialContextFactory;

/**
 * A standalone JTA environment for plain JUnit tests: Narayana's transaction manager, Agroal pools that enlist
 * their connections in its transactions (as a container's JTA datasource does) or not, and a JNDI context that
 * binds the registry at {@link JtaTransactionSupport#JNDI_NAME}, so that discovery finds it as in a container.
 */
final class NarayanaJta {

    static final TransactionManager TM = com.arjuna.ats.jta.TransactionManager.transactionManager();
    static final TransactionSynchronizationRegistry TSR = new TransactionSynchronizationRegistryImple();

    private NarayanaJta() {
    }

    /** Makes {@code new InitialContext()} find the registry, as {@link JtaTransactionSupport} looks it up. */
    static void bindRegistryInJndi() {
        System.setProperty(Context.INITIAL_CONTEXT_FACTORY, Naming.class.getName());
    }

    static void unbindJndi() {
        System.clearProperty(Context.INITIAL_CONTEXT_FACTORY);
    }

    /**
     * @param db where
     * @param enlisting whether connections join the calling thread's JTA transaction
     * @return a pool of up to 12 connections
     */
    static AgroalDataSource pool(TestDatabase db, boolean enlisting) {
        AgroalDataSourceConfigurationSupplier config = new AgroalDataSourceConfigurationSupplier()
                .connectionPoolConfiguration(cp -> {
                    cp.maxSize(12).acquisitionTimeout(Duration.ofSeconds(10));
                    if (enlisting) {
                        cp.transactionIntegration(new NarayanaTransactionIntegration(TM, TSR));
                    }
                    return cp.connectionFactoryConfiguration(cf -> cf.jdbcUrl(db.url())
                            .principal(new NamePrincipal(db.user())).credential(new SimplePassword("")));
                });
        try {
            return AgroalDataSource.from(config);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs {@code work} in a new JTA transaction: commits if it returns, rolls back if it throws. */
    static <T> T inTransaction(Callable<T> work) throws Exception {
        TM.begin();
        T result;
        try {
            result = work.call();
        } catch (Exception | Error e) {
            if (TM.getStatus() != Status.STATUS_NO_TRANSACTION) {
                TM.rollback();
            }
            throw e;
        }
        TM.commit();
        return result;
    }

    /** A JNDI context that knows one name. */
    public static final class Naming implements InitialContextFactory {
        @Override
        public Context getInitialContext(Hashtable<?, ?> environment) {
            return (Context) Proxy.newProxyInstance(Context.class.getClassLoader(), new Class<?>[] {Context.class},
                    (proxy, method, args) -> switch (method.getName()) {
                        case "lookup" -> {
                            if (JtaTransactionSupport.JNDI_NAME.equals(String.valueOf(args[0]))) {
                                yield TSR;
                            }
                            throw new NameNotFoundException(String.valueOf(args[0]));
                        }
                        case "close" -> null;
                        default -> throw new UnsupportedOperationException(method.getName());
                    });
        }
    }
}
