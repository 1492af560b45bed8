package io.txlock.chaos;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.spi.TransactionSupport;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A holder JVM of the chaos suite: loops acquire, {@code isValid()}, in one round of four {@code extend()} to a
 * shorter or equal lease, hold, {@code isValid()}, fenced write, hold,
 * {@code isValid()}, release (so that a pause almost anywhere in the round is followed by a validity check), logging every step to its history, until {@code STOP} (or end of input) on stdin.
 * Every exception of the lock API is logged with its class and the loop goes on; the checker decides which are
 * allowed. Started by the controller with {@link HolderSpec#toArgs()}.
 */
public final class ChaosHolder {

    private final HolderSpec spec;
    private final History history;
    private volatile boolean stopping;

    private ChaosHolder(HolderSpec spec, History history) {
        this.spec = spec;
        this.history = history;
    }

    /**
     * @param args see {@link HolderSpec#fromArgs(String[])}
     * @throws Exception if the holder could not even start; once started it logs failures instead of throwing
     */
    public static void main(String[] args) throws Exception {
        HolderSpec spec = HolderSpec.fromArgs(args);
        try (History history = History.append(spec.history(), spec.id())) {
            history.log(Event.Kind.START, 0, "pid " + ProcessHandle.current().pid());
            new ChaosHolder(spec, history).run();
        }
        System.exit(0);
    }

    private void run() throws Exception {
        Thread stdin = new Thread(this::awaitStop, "chaos-stdin");
        stdin.setDaemon(true);
        stdin.start();
        LockOptions options = LockOptions.defaults().withScope(LockScope.LEASE).withLease(spec.lease()).withWait(spec.waitTime());
        LockManager locks = LockManager.builder(backend().provider(spec.config()))
                .transactions(TransactionSupport.none()).build();
        try (Resource resource = new Resource(spec.resourceUrl())) {
            while (!stopping) {
                round(locks, options, resource);
                pause(spec.maxHold().toMillis() / 4);
            }
        }
        try {
            locks.close();
            history.log(Event.Kind.END, 0, "closed");
        } catch (Throwable e) {
            exception("close", 0, e);
        }
    }

    private ChaosBackend backend() throws ReflectiveOperationException {
        return Class.forName(spec.backend()).asSubclass(ChaosBackend.class).getDeclaredConstructor().newInstance();
    }

    private void round(LockManager locks, LockOptions options, Resource resource) {
        history.log(Event.Kind.REQ, 0, spec.lock());
        LockHandle handle;
        try {
            handle = locks.acquire(spec.lock(), options);
        } catch (Throwable e) {
            exception("acquire", 0, e);
            pause(50);
            return;
        }
        long token = handle.fencingToken();
        history.log(Event.Kind.GRANT, token, "");
        try {
            handle.onLost(() -> history.log(Event.Kind.LOST, token, ""));
            if (valid(handle, token)) {
                if (ThreadLocalRandom.current().nextInt(4) == 0) {
                    extend(handle, token);
                }
                hold(spec.maxHold().toMillis());
                if (valid(handle, token)) {
                    write(resource, token);
                    pause(spec.maxHold().toMillis() / 2);
                    valid(handle, token);
                }
            }
        } catch (Throwable e) {
            exception("hold", token, e);
        }
        try {
            handle.release();
            history.log(Event.Kind.REL, token, "");
        } catch (Throwable e) {
            exception("release", token, e);
        }
    }

    private boolean valid(LockHandle handle, long token) {
        long before = System.nanoTime();
        boolean valid = handle.isValid();
        history.log(before, Event.Kind.VALID, token, Boolean.toString(valid));
        return valid;
    }

    /** Extends the lease to between half of it and all of it: a shortening extend must never outlive its lease. */
    private void extend(LockHandle handle, long token) {
        Duration lease = spec.lease().multipliedBy(50 + ThreadLocalRandom.current().nextInt(51)).dividedBy(100);
        try {
            handle.extend(lease);
            history.log(Event.Kind.EXTEND, token, Long.toString(lease.toMillis()));
        } catch (Throwable e) {
            exception("extend", token, e);
        }
    }

    private void write(Resource resource, long token) {
        try {
            boolean accepted = resource.write(spec.resource(), token, spec.id());
            history.log(Event.Kind.WRITE, token, accepted ? "accepted" : "refused");
        } catch (SQLException e) {
            history.log(Event.Kind.RESERR, token, e.toString());
        }
    }

    private void exception(String phase, long token, Throwable e) {
        history.log(Event.Kind.EXC, token, phase + " " + e.getClass().getName() + " " + e.getMessage());
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sleeps half of {@code maxMillis} and a random part of the other half: long enough for a pause to land in. */
    private static void hold(long maxMillis) {
        try {
            Thread.sleep(maxMillis / 2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        pause(maxMillis / 2);
    }

    private static void pause(long maxMillis) {
        if (maxMillis <= 0) {
            return;
        }
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(maxMillis + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void awaitStop() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null && !line.equals("STOP"); line = in.readLine()) {
                // nothing else is said to a holder
            }
        } catch (Exception e) {
            // the controller is gone: stop as well
        }
        stopping = true;
    }
}
