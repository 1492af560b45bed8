package io.txlock.zookeeper;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.spi.TransactionSupport;
import io.txlock.testkit.ProviderFactory;

/**
 * A child JVM that takes a lock and holds it until it is killed: {@code <factory class> <config> <lock name>}.
 * Prints {@code HELD <token> <manager instance id>} once it holds the lock.
 */
public final class HolderProcess {

    private HolderProcess() {
    }

    /**
     * @param args factory class, its configuration, lock name
     * @throws Exception if the lock cannot be taken
     */
    public static void main(String[] args) throws Exception {
        ProviderFactory factory = (ProviderFactory) Class.forName(args[0]).getDeclaredConstructor().newInstance();
        LockManager locks = LockManager.builder(factory.create(args[1])).transactions(TransactionSupport.none()).build();
        LockHandle handle = locks.acquire(args[2], LockOptions.defaults().withScope(LockScope.LEASE));
        System.out.println("HELD " + handle.fencingToken() + " " + locks.instanceId());
        System.out.flush();
        while (true) {
            Thread.sleep(60_000); // hold until killed
        }
    }
}
