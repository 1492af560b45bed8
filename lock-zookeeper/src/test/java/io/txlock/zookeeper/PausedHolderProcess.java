package io.txlock.zookeeper;

import io.txlock.LockException;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.spi.TransactionSupport;
import io.txlock.testkit.ProviderFactory;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM that takes a lock and keeps asking its handle {@code isValid()} until it notices that it was paused
 * (by {@code SIGSTOP}) for longer than {@code <pause ms>}: {@code <factory class> <config> <lock name> <pause ms>}.
 * Prints {@code HELD <token>}, then {@code RESUMED valid=<the first isValid() evaluated after the pause>}, then
 * {@code RELEASED} or {@code RELEASE <exception class>: <message>}, and exits.
 */
public final class PausedHolderProcess {

    private PausedHolderProcess() {
    }

    /**
     * @param args factory class, its configuration, lock name, the gap between two checks that counts as a pause
     * @throws Exception if the lock cannot be taken
     */
    public static void main(String[] args) throws Exception {
        ProviderFactory factory = (ProviderFactory) Class.forName(args[0]).getDeclaredConstructor().newInstance();
        long pauseNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[3]));
        try (LockManager locks = LockManager.builder(factory.create(args[1])).transactions(TransactionSupport.none()).build()) {
            LockHandle handle = locks.acquire(args[2], LockOptions.defaults().withScope(LockScope.LEASE));
            say("HELD " + handle.fencingToken());
            long last = System.nanoTime();
            while (true) {
                long now = System.nanoTime();
                boolean valid = handle.isValid();
                if (now - last > pauseNanos) {
                    say("RESUMED valid=" + valid + " after a pause of " + TimeUnit.NANOSECONDS.toMillis(now - last) + " ms");
                    break;
                }
                last = now;
                Thread.sleep(2);
            }
            try {
                handle.release();
                say("RELEASED");
            } catch (LockException e) {
                say("RELEASE " + e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
        System.exit(0);
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
