package io.txlock.etcd;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.spi.TransactionSupport;
import io.txlock.testkit.ProviderFactory;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A child JVM that takes a LEASE lock and holds it (renewed) until told otherwise:
 * {@code <factory class> <config> <lock name> <lease ms>}. Prints {@code HELD <token> <manager instance id>}, then
 * answers each line on stdin: {@code check} with {@code VALID <isValid()>}, {@code release} with {@code RELEASED}
 * or {@code REFUSED <exception class>}.
 */
public final class HolderProcess {

    private HolderProcess() {
    }

    /**
     * @param args factory class, its configuration, lock name, lease in milliseconds
     * @throws Exception if the lock cannot be taken
     */
    public static void main(String[] args) throws Exception {
        ProviderFactory factory = (ProviderFactory) Class.forName(args[0]).getDeclaredConstructor().newInstance();
        try (LockManager locks = LockManager.builder(factory.create(args[1])).transactions(TransactionSupport.none()).build()) {
            LockHandle handle = locks.acquire(args[2], LockOptions.defaults().withScope(LockScope.LEASE)
                    .withLease(Duration.ofMillis(Long.parseLong(args[3]))).withWait(Duration.ofSeconds(30)));
            say("HELD " + handle.fencingToken() + " " + locks.instanceId());
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                switch (line.trim()) {
                    case "check" -> say("VALID " + handle.isValid());
                    case "release" -> {
                        try {
                            handle.release();
                            say("RELEASED");
                        } catch (RuntimeException e) {
                            say("REFUSED " + e.getClass().getSimpleName() + " " + e.getMessage());
                        }
                    }
                    default -> say("UNKNOWN " + line);
                }
            }
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
