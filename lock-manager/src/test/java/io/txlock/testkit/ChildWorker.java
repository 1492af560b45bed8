package io.txlock.testkit;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/**
 * The other JVM of the contract kit's cross-process tests, started by {@link ChildJvm}. It builds its providers
 * from a {@link ProviderRecipe}, talks to the test over stdout (one word per line) and stdin, and exits 0 on
 * success or 1 with the failure on stderr.
 *
 * <ul>
 *   <li>{@code count <factory> <config> <lock> <counterFile> <sectionFile> <managers> <threads> <iterations>}:
 *       warms up (each manager takes and frees a lock of its own), prints {@code READY}, waits for {@code GO} on stdin, then each thread increments the number in
 *       {@code counterFile} {@code iterations} times under the lock, without any other synchronisation. Each
 *       critical section is written to {@code sectionFile} as one {@link Section} line.</li>
 *   <li>{@code hold <factory> <config> <lock> <leaseMillis>}: acquires the lock in LEASE scope with that lease,
 *       prints {@code HOLDING <token> <ownerId>}, and keeps it (renewed) until stdin closes or the process is killed.</li>
 * </ul>
 */
public final class ChildWorker {

    static final String READY = "READY";
    static final String GO = "GO";
    static final String HOLDING = "HOLDING ";
    private static final Duration WAIT = Duration.ofSeconds(60);

    private ChildWorker() {
    }

    /**
     * @param args see the class comment
     * @throws Exception on any failure: the JVM then exits with a stack trace and status 1
     */
    public static void main(String[] args) throws Exception {
        try {
            switch (args[0]) {
                case "count" -> count(args);
                case "hold" -> hold(args);
                default -> throw new IllegalArgumentException("unknown mode " + args[0]);
            }
        } catch (Throwable e) {
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    private static void count(String[] args) throws Exception {
        String lock = args[3];
        Path counter = Path.of(args[4]);
        Path sectionFile = Path.of(args[5]);
        int managerCount = Integer.parseInt(args[6]);
        int threads = Integer.parseInt(args[7]);
        int iterations = Integer.parseInt(args[8]);
        List<LockManager> managers = new ArrayList<>();
        try {
            for (int i = 0; i < managerCount; i++) {
                managers.add(LockManager.builder(provider(args)).build());
            }
            LockOptions options = LockOptions.defaults().withScope(LockScope.LEASE).withWait(WAIT);
            String warmUp = lock + "#warm-up-" + ProcessHandle.current().pid();
            for (LockManager manager : managers) {
                manager.acquire(warmUp, options).release();
            }
            List<Section> sections = new CopyOnWriteArrayList<>();
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                LockManager manager = managers.get(t % managerCount);
                String worker = "manager " + (t % managerCount) + " thread " + t;
                Thread thread = new Thread(() -> {
                    try {
                        go.await();
                        for (int i = 0; i < iterations; i++) {
                            try (LockHandle handle = manager.acquire(lock, options)) {
                                long start = System.nanoTime();
                                increment(counter, handle.fencingToken());
                                sections.add(new Section(worker, handle.fencingToken(), start, System.nanoTime()));
                            }
                        }
                    } catch (Throwable e) {
                        failures.add(new AssertionError(worker + " failed", e));
                    }
                }, worker);
                thread.start();
                workers.add(thread);
            }
            say(READY);
            awaitLine(GO);
            go.countDown();
            for (Thread thread : workers) {
                thread.join();
            }
            Files.write(sectionFile, sections.stream().map(Section::toLine).toList(), StandardCharsets.UTF_8);
            if (!failures.isEmpty()) {
                AssertionError error = new AssertionError(failures.size() + " of " + threads + " threads failed");
                failures.forEach(error::addSuppressed);
                throw error;
            }
        } finally {
            managers.forEach(LockManager::close);
        }
    }

    /**
     * The critical section: a read-modify-write of a file with a pause in between, so that two holders at once
     * lose an update (or read a half-written number).
     */
    private static void increment(Path counter, long token) throws Exception {
        String text = Files.readString(counter, StandardCharsets.US_ASCII).trim();
        long value;
        try {
            value = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("the holder with token " + token + " read '" + text + "' from the counter:"
                    + " another holder was writing it at the same time", e);
        }
        Thread.yield();
        long spinUntil = System.nanoTime() + 100_000;
        while (System.nanoTime() - spinUntil < 0) {
            Thread.onSpinWait();
        }
        Files.writeString(counter, Long.toString(value + 1), StandardCharsets.US_ASCII);
    }

    private static void hold(String[] args) throws Exception {
        String lock = args[3];
        Duration lease = Duration.ofMillis(Long.parseLong(args[4]));
        try (LockManager manager = LockManager.builder(provider(args)).build()) {
            LockHandle handle = manager.acquire(lock,
                    LockOptions.defaults().withScope(LockScope.LEASE).withLease(lease).withWait(WAIT));
            String owner = manager.inspect(lock).map(io.txlock.LockInfo::ownerId)
                    .orElseThrow(() -> new IllegalStateException("its own manager does not show '" + lock + "' held"));
            say(HOLDING + handle.fencingToken() + " " + owner);
            while (System.in.read() >= 0) {
                // hold until the test closes stdin or kills this JVM
            }
            handle.release();
        }
    }

    private static io.txlock.spi.LockProvider provider(String[] args) throws Exception {
        ProviderFactory factory = Class.forName(args[1]).asSubclass(ProviderFactory.class)
                .getConstructor().newInstance();
        return factory.create(args[2]);
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static void awaitLine(String expected) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line = in.readLine();
        if (!expected.equals(line)) {
            throw new IllegalStateException("expected '" + expected + "' on stdin, got " + line);
        }
    }
}
