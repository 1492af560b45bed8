package io.txlock.adapter;

import jakarta.resource.ResourceException;
import jakarta.resource.spi.ActivationSpec;
import jakarta.resource.spi.BootstrapContext;
import jakarta.resource.spi.Connector;
import jakarta.resource.NotSupportedException;
import jakarta.resource.spi.ResourceAdapter;
import jakarta.resource.spi.ResourceAdapterInternalException;
import jakarta.resource.spi.TransactionSupport.TransactionSupportLevel;
import jakarta.resource.spi.endpoint.MessageEndpointFactory;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.transaction.xa.XAResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The txlock resource adapter. {@link #start} takes the container's {@code WorkManager}, a timer and the
 * {@code TransactionSynchronizationRegistry} from the {@link BootstrapContext}; each connection factory
 * ({@link TxlockManagedConnectionFactory}, configured by its config properties) builds one lock manager on them when
 * its first connection is asked for (the JDBC backend's datasource belongs to the application, which is bound after
 * the adapter starts). {@link #stop} closes every lock manager, which releases the locks they still hold, and waits
 * for their work to finish: no thread of txlock's stays behind.
 */
@Connector(displayName = "txlock", vendorName = "txlock", eisType = "distributed locks", version = "0.1",
        description = "Transactional distributed locks on a database, Redis or ZooKeeper",
        transactionSupport = TransactionSupportLevel.NoTransaction, reauthenticationSupport = false)
public class TxlockResourceAdapter extends OwnIdentity implements ResourceAdapter {

    private static final Logger log = LoggerFactory.getLogger(TxlockResourceAdapter.class);
    private static final long STOP_WAIT_SECONDS = 30;

    private final Set<TxlockManagedConnectionFactory> factories =
            Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
    private volatile ContainerExecutor executor;
    private volatile TransactionGuard transactions;

    /** For the container. */
    public TxlockResourceAdapter() {
    }

    @Override
    public void start(BootstrapContext context) throws ResourceAdapterInternalException {
        TransactionSynchronizationRegistry registry = context.getTransactionSynchronizationRegistry();
        if (registry == null) {
            throw new ResourceAdapterInternalException("the container's BootstrapContext gives no"
                    + " TransactionSynchronizationRegistry: txlock's adapter needs one to bind locks to transactions");
        }
        try {
            executor = new ContainerExecutor(context.getWorkManager(), context.createTimer());
        } catch (jakarta.resource.spi.UnavailableException e) {
            throw new ResourceAdapterInternalException("the container gives the adapter no timer: " + e.getMessage(), e);
        }
        transactions = new TransactionGuard(registry);
        log.info("txlock resource adapter started");
    }

    @Override
    public void stop() {
        List<TxlockManagedConnectionFactory> stopping;
        synchronized (factories) {
            stopping = new ArrayList<>(factories);
            factories.clear();
        }
        for (TxlockManagedConnectionFactory factory : stopping) {
            factory.closeManager();
        }
        ContainerExecutor running = executor;
        if (running != null) {
            running.shutdown();
            try {
                if (!running.awaitTermination(STOP_WAIT_SECONDS, TimeUnit.SECONDS)) {
                    log.warn("txlock work still running {} s after the adapter stopped", STOP_WAIT_SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        log.info("txlock resource adapter stopped; {} lock manager(s) closed", stopping.size());
    }

    /** @return where the lock managers' timers and work run; null before {@link #start} */
    ContainerExecutor executor() {
        return executor;
    }

    /** @return the adapter's JTA support; null before {@link #start} */
    TransactionGuard transactions() {
        return transactions;
    }

    /** @param factory a connection factory whose lock manager {@link #stop} closes */
    void register(TxlockManagedConnectionFactory factory) {
        factories.add(factory);
    }

    @Override
    public void endpointActivation(MessageEndpointFactory endpointFactory, ActivationSpec spec) throws ResourceException {
        throw new NotSupportedException("txlock's adapter has no inbound messaging");
    }

    @Override
    public void endpointDeactivation(MessageEndpointFactory endpointFactory, ActivationSpec spec) {
        // no inbound messaging
    }

    @Override
    public XAResource[] getXAResources(ActivationSpec[] specs) {
        return null;
    }
}
