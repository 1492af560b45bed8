package io.txlock.bench;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A worker JVM: one application node of the simulated cluster, running some of the workers of a lock scenario
 * against the namespace its parent created. Started by {@link ProcessCluster} as
 * {@code java -cp <the bench's class path> io.txlock.bench.Worker key=value…}.
 *
 * <p>Protocol, one line each. To the parent (stdout): {@code READY <nanoTime>} once connected; then a line per
 * critical section ({@link CriticalSection#toLine()}), {@code T} per timeout, {@code E <message>} per failure,
 * {@code H <worker> <token> <requested> <start> <name>} when a worker holds a lock and hangs; {@code DONE} at the
 * end. From the parent (stdin): {@code GO} to start, {@code HANG} to make the next worker that gets a lock keep
 * it forever, {@code STOP} to finish (end of input also stops).
 */
public final class Worker {

    /** How long a worker JVM whose parent went away may take to finish before it exits anyway. */
    private static final long ORPHAN_GRACE_MILLIS = 5_000;

    private final PrintStream out;

    private Worker(PrintStream out) {
        this.out = out;
    }

    /**
     * @param args backend spec, {@code strategy=}, workload and {@code workers=<id,id,…>} as {@code key=value}
     * @throws Exception if the backend cannot be reached
     */
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        new Worker(out).run(Args.parse(args));
        System.exit(0);
    }

    private void run(Map<String, String> args) throws Exception {
        BackendSpec spec = BackendSpec.fromArgs(args);
        String strategy = args.get("strategy");
        LockWorkload workload = LockWorkload.fromArgs(args);
        int[] ids = Arrays.stream(args.get("workers").split(",")).mapToInt(Integer::parseInt).toArray();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean hangRequested = new AtomicBoolean();
        AtomicBoolean hangTaken = new AtomicBoolean();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (Backend backend = Backends.open(spec, 2 * ids.length + 2, ids.length + 2, false, workload.lease()); Site site = backend.openSite(strategy, 1)) {
            List<Locker> lockers = new ArrayList<>();
            for (int ignored : ids) {
                lockers.add(Locker.txlock(site.nodeOf(0), workload));
            }
            line("READY " + System.nanoTime());
            String go = in.readLine();
            if (!"GO".equals(go)) {
                throw new IllegalStateException("expected GO from the parent, got " + go);
            }
            Thread commands = new Thread(() -> readCommands(in, stop, hangRequested), "worker-commands");
            commands.setDaemon(true);
            commands.start();
            WorkerLoop.Sink sink = sink();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < ids.length; i++) {
                WorkerLoop loop = new WorkerLoop(ids[i], lockers.get(i), workload, stop::get,
                        () -> hangRequested.get() && hangTaken.compareAndSet(false, true), sink);
                Thread t = new Thread(loop, "worker-" + ids[i]);
                threads.add(t);
                t.start();
            }
            for (Thread t : threads) {
                t.join();
            }
            line("DONE");
        }
    }

    private static void readCommands(BufferedReader in, AtomicBoolean stop, AtomicBoolean hang) {
        try {
            String command;
            while ((command = in.readLine()) != null) {
                switch (command) {
                    case "HANG" -> hang.set(true);
                    case "STOP" -> stop.set(true);
                    default -> throw new IllegalStateException("unknown command from the parent: " + command);
                }
            }
        } catch (IOException e) {
            // the parent is gone
        }
        stop.set(true);
        try {
            Thread.sleep(ORPHAN_GRACE_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // the parent is gone and a worker is still inside (a hung holder, a long wait): do not outlive the parent
        System.exit(2);
    }

    private WorkerLoop.Sink sink() {
        return new WorkerLoop.Sink() {
            @Override
            public void section(CriticalSection section) {
                line(section.toLine());
            }

            @Override
            public void timeout() {
                line("T");
            }

            @Override
            public void error(Exception failure) {
                line("E " + failure.toString().replace('\n', ' ').replace('\r', ' '));
            }

            @Override
            public void hanging(int worker, String name, long token, long requested, long start) {
                line("H " + worker + " " + token + " " + requested + " " + start + " " + name);
            }
        };
    }

    private synchronized void line(String text) {
        out.println(text);
        out.flush();
    }
}
