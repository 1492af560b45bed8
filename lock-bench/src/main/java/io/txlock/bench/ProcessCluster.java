package io.txlock.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs the workers of a lock scenario in separate worker JVMs ({@link Worker}), the real distributed case:
 * each JVM is one node with its own lock manager and connections. Optionally makes one worker hang while
 * holding its lock and kills its JVM with {@code kill -9} ({@link Process#destroyForcibly()}), then watches how
 * long the lock takes to come back.
 */
final class ProcessCluster {

    private static final long READY_TIMEOUT_SECONDS = 120;

    private final Backend backend;
    private final String strategy;
    private final LockWorkload workload;
    private final Progress progress;
    private final Queue<CriticalSection> sections = new ConcurrentLinkedQueue<>();
    private final AtomicLong timeouts = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final Queue<String> examples = new ConcurrentLinkedQueue<>();
    private final AtomicReference<Hang> hang = new AtomicReference<>();
    private final List<Child> children = new ArrayList<>();

    private record Hang(Child child, int worker, String name, long token, long requested, long start, long killedAt) {
    }

    private ProcessCluster(Backend backend, String strategy, LockWorkload workload, Progress progress) {
        this.backend = backend;
        this.strategy = strategy;
        this.workload = workload;
        this.progress = progress;
    }

    /**
     * @param backend the backend; its namespace must stay open during the run
     * @param strategy the strategy
     * @param workload what the workers do
     * @param workers how many workers in all
     * @param processes how many worker JVMs; workers are spread round-robin
     * @param timing warm-up and measured window (counted from the moment every JVM is ready)
     * @param killHolder make a worker of the first JVM hang while holding a lock halfway through, and kill that JVM
     * @param progress where to count operations
     * @return the sections and failures, with the kill report if one was asked for
     * @throws Exception if a worker JVM could not start or failed
     */
    static ClusterOutcome run(Backend backend, String strategy, LockWorkload workload, int workers, int processes,
            Timing timing, boolean killHolder, Progress progress) throws Exception {
        return run(backend, strategy, workload, workers, processes, timing, killHolder, progress, CostMeter.NONE);
    }

    /**
     * {@link #run(Backend, String, LockWorkload, int, int, Timing, boolean, Progress)}, with what the measured window
     * cost: the worker JVMs' CPU counts as the bench's.
     *
     * @param backend the backend; its namespace must stay open during the run
     * @param strategy the strategy
     * @param workload what the workers do
     * @param workers how many workers in all
     * @param processes how many worker JVMs; workers are spread round-robin
     * @param timing warm-up and measured window (counted from the moment every JVM is ready)
     * @param killHolder make a worker of the first JVM hang while holding a lock halfway through, and kill that JVM
     * @param progress where to count operations
     * @param meter reads the CPU and the server's requests at the start and the end of the measured window
     * @return the sections and failures, with the kill report if one was asked for
     * @throws Exception if a worker JVM could not start or failed
     */
    static ClusterOutcome run(Backend backend, String strategy, LockWorkload workload, int workers, int processes,
            Timing timing, boolean killHolder, Progress progress, CostMeter meter) throws Exception {
        ProcessCluster cluster = new ProcessCluster(backend, strategy, workload, progress);
        try {
            return cluster.execute(workers, Math.min(processes, workers), timing, killHolder, meter);
        } finally {
            cluster.children.forEach(Child::destroy);
        }
    }

    private ClusterOutcome execute(int workers, int processes, Timing timing, boolean killHolder, CostMeter meter) throws Exception {
        backend.prepareWorkers(strategy);
        BackendSpec spec = backend.childSpec();
        for (int p = 0; p < processes; p++) {
            List<Integer> ids = new ArrayList<>();
            for (int w = p; w < workers; w += processes) {
                ids.add(w);
            }
            children.add(start(p, spec, ids));
        }
        for (Child c : children) {
            c.awaitReady();
        }
        meter.settle();
        long begin = System.nanoTime();
        children.forEach(c -> c.send("GO"));
        Timing.Window window = timing.window(begin);
        long from = window.from();
        long to = window.to();
        List<Long> pids = children.stream().map(c -> c.process.pid()).toList();
        Timing.sleepUntil(from);
        CostMeter.Sample start = meter.start(pids);
        if (killHolder) {
            Timing.sleepUntil(from + timing.duration().toNanos() / 2);
            children.get(0).send("HANG");
        }
        Timing.sleepUntil(to);
        CostMeter.Sample end = meter.end(pids);
        if (killHolder) {
            awaitRecovery(to);
        }
        for (Child c : children) {
            if (c.process.isAlive()) {
                c.send("STOP");
            }
        }
        for (Child c : children) {
            c.awaitEnd(workload.waitTime().toSeconds() + 60);
        }
        List<CriticalSection> all = new ArrayList<>(sections);
        KillReport kill = null;
        Hang h = hang.get();
        if (h != null) {
            all.add(new CriticalSection(h.worker(), h.name(), h.token(), h.requested(), h.start(), h.killedAt(), h.killedAt()));
            kill = killReport(h, all);
        } else if (killHolder) {
            error("no worker got a lock after HANG was sent, so no holder was killed");
        }
        return new ClusterOutcome(all, timeouts.get(), errors.get(), new ArrayList<>(examples), from, to, kill,
                meter.between(start, end));
    }

    /** Waits (past the planned end, if need be) until someone else holds the killed holder's lock. */
    private void awaitRecovery(long plannedEnd) throws InterruptedException {
        long giveUp = plannedEnd + workload.lease().toNanos() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < giveUp) {
            Hang h = hang.get();
            if (h != null && h.killedAt() > 0 && nextHolder(h, sections) != null) {
                return;
            }
            Thread.sleep(20);
        }
    }

    private static CriticalSection nextHolder(Hang h, Iterable<CriticalSection> all) {
        CriticalSection next = null;
        for (CriticalSection s : all) {
            if (s.name().equals(h.name()) && s.start() > h.start() && !(s.worker() == h.worker() && s.start() == h.start())
                    && (next == null || s.start() < next.start())) {
                next = s;
            }
        }
        return next;
    }

    private static KillReport killReport(Hang h, List<CriticalSection> all) {
        CriticalSection next = nextHolder(h, all);
        return new KillReport(h.child().process.pid(), h.worker(), h.name(), h.token(), h.start(), h.killedAt(),
                next == null ? -1 : (next.start() - h.killedAt()) / 1e6, next == null ? -1 : next.worker(),
                next == null ? CriticalSection.NO_TOKEN : next.token(), next != null && next.requested() < h.killedAt(),
                h.child().workers);
    }

    private Child start(int index, BackendSpec spec, List<Integer> workerIds) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), Worker.class.getName()));
        command.addAll(spec.toArgs());
        command.add("strategy=" + strategy);
        command.addAll(workload.toArgs());
        StringJoiner ids = new StringJoiner(",");
        workerIds.forEach(w -> ids.add(Integer.toString(w)));
        command.add("workers=" + ids);
        Path log = Files.createTempFile("txlock-bench-worker-" + index + "-", ".log");
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        long spawned = System.nanoTime();
        Child child = new Child(index, List.copyOf(workerIds), builder.start(), log, spawned);
        Thread reader = new Thread(child::read, "bench-worker-jvm-" + index);
        reader.setDaemon(true);
        reader.start();
        return child;
    }

    private void error(String message) {
        if (errors.incrementAndGet() <= 5) {
            examples.add(message);
        }
    }

    /** One worker JVM and the thread reading its lines. */
    private final class Child {
        final int index;
        final List<Integer> workers;
        final Process process;
        final Path log;
        final long spawned;
        final Writer commands;
        final CountDownLatch ready = new CountDownLatch(1);
        final CountDownLatch ended = new CountDownLatch(1);
        volatile String readyProblem;
        volatile boolean done;
        volatile boolean killed;

        Child(int index, List<Integer> workers, Process process, Path log, long spawned) {
            this.index = index;
            this.workers = workers;
            this.process = process;
            this.log = log;
            this.spawned = spawned;
            this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        }

        void read() {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    handle(line);
                }
            } catch (IOException | RuntimeException e) {
                if (!killed) {
                    readyProblem = readyProblem != null ? readyProblem : "reading worker JVM " + index + " failed: " + e;
                    error("reading worker JVM " + index + " failed: " + e);
                    process.destroyForcibly();
                }
            } finally {
                ready.countDown();
                ended.countDown();
            }
        }

        private void handle(String line) {
            if (line.startsWith("READY ")) {
                long childNanos = Long.parseLong(line.substring(6));
                if (childNanos < spawned || childNanos > System.nanoTime()) {
                    readyProblem = "worker JVM " + index + " reads System.nanoTime() on another clock than the bench (its "
                            + childNanos + " is not between spawn " + spawned + " and now); critical sections of separate"
                            + " JVMs cannot be compared on this platform";
                }
                ready.countDown();
                return;
            }
            if (line.equals("DONE")) {
                done = true;
                return;
            }
            switch (line.charAt(0)) {
                case 'R' -> {
                    sections.add(CriticalSection.parse(line));
                    progress.op();
                }
                case 'T' -> timeouts.incrementAndGet();
                case 'E' -> error("worker JVM " + index + ": " + line.substring(2));
                case 'H' -> killHolder(line);
                default -> error("worker JVM " + index + " printed: " + line);
            }
        }

        /**
         * The worker hangs while holding its lock: kill -9 its JVM. Its section ends when the kill is sent: it has
         * done nothing since it reported the lock, and it runs no more code after. The moment this JVM sees the
         * process gone can come later than the moment the database saw its connection die and granted the row
         * lock to the next holder (by milliseconds on a loaded machine), so it would show an overlap that was not.
         */
        private void killHolder(String line) {
            String[] f = line.split(" ", 6);
            killed = true;
            long killedAt = System.nanoTime();
            process.destroyForcibly();
            try {
                process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            hang.set(new Hang(this, Integer.parseInt(f[1]), f[5], Long.parseLong(f[2]), Long.parseLong(f[3]),
                    Long.parseLong(f[4]), killedAt));
            progress.note("  killed worker JVM " + process.pid() + " (kill -9) while it held '" + f[5] + "' with token " + f[2]);
        }

        void send(String command) {
            try {
                commands.write(command + "\n");
                commands.flush();
            } catch (IOException e) {
                if (!killed) {
                    error("could not send " + command + " to worker JVM " + index + ": " + e.getMessage());
                }
            }
        }

        void awaitReady() throws Exception {
            if (!ready.await(READY_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("worker JVM " + index + " was not ready within " + READY_TIMEOUT_SECONDS + " s;"
                        + " its log: " + tail());
            }
            if (!process.isAlive() && !killed) {
                throw new IllegalStateException("worker JVM " + index + " exited with " + process.waitFor() + " before starting: "
                        + tail());
            }
            if (readyProblem != null) {
                throw new IllegalStateException(readyProblem);
            }
        }

        void awaitEnd(long seconds) throws Exception {
            if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("worker JVM " + index + " did not stop within " + seconds + " s; its log: " + tail());
            }
            ended.await(10, TimeUnit.SECONDS);
            if (!killed && (process.exitValue() != 0 || !done)) {
                throw new IllegalStateException("worker JVM " + index + " failed (exit " + process.exitValue() + "): " + tail());
            }
        }

        void destroy() {
            if (process.isAlive()) {
                process.destroyForcibly();
            }
            try {
                Files.deleteIfExists(log);
            } catch (IOException ignored) {
                // a temp file
            }
        }

        private String tail() {
            try {
                List<String> lines = Files.readAllLines(log);
                return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
            } catch (IOException e) {
                return "(no log: " + e.getMessage() + ")";
            }
        }
    }
}
