package io.txlock.redis;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.spi.TransactionSupport;
import io.txlock.testkit.ProviderFactory;
import java.time.Duration;

/**
 * A child JVM that waits for a LEASE lock (up to 120 s), prints {@code GOT <token>}, releases it and exits.
 * Arguments: provider factory class, its configuration, lock name.
 */
public final class OneGrantProcess {

    private OneGrantProcess() {
    }

    /**
     * @param args factory class, configuration, lock name
     * @throws Exception if the lock cannot be taken
     */
    public static void main(String[] args) throws Exception {
        ProviderFactory factory = (ProviderFactory) Class.forName(args[0]).getDeclaredConstructor().newInstance();
        try (LockManager locks = LockManager.builder(factory.create(args[1])).transactions(TransactionSupport.none()).build()) {
            System.out.println("STARTED");
            System.out.flush();
            try (LockHandle handle = locks.acquire(args[2],
                    LockOptions.defaults().withScope(LockScope.LEASE).withWait(Duration.ofSeconds(120)))) {
                System.out.println("GOT " + handle.fencingToken());
                System.out.flush();
            }
        }
    }
}
