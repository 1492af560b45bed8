package io.txlock.redis;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.spi.TransactionSupport;
import io.txlock.testkit.ProviderFactory;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A child JVM that takes a LEASE lock, prints {@code HELD <token>} and keeps it (renewing) until it is killed.
 * Arguments: provider factory class, its configuration, lock name, lease in ms.
 */
public final class LockHolderProcess {

    private LockHolderProcess() {
    }

    /**
     * @param args factory class, configuration, lock name, lease in ms
     * @throws Exception if the lock cannot be taken
     */
    public static void main(String[] args) throws Exception {
        ProviderFactory factory = (ProviderFactory) Class.forName(args[0]).getDeclaredConstructor().newInstance();
        LockManager locks = LockManager.builder(factory.create(args[1])).transactions(TransactionSupport.none()).build();
        LockHandle handle = locks.acquire(args[2], LockOptions.defaults().withScope(LockScope.LEASE)
                .withLease(Duration.ofMillis(Long.parseLong(args[3]))));
        System.out.println("HELD " + handle.fencingToken());
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
