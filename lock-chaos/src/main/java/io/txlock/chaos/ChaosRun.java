package io.txlock.chaos;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The controller of one run: starts the holder JVMs, injects one cycle of faults after another (kill -9 of a holder,
 * SIGSTOP of a holder for several leases, then the backend's own faults), waits after each until every live holder
 * was granted again, stops the holders and hands everything to the {@link Checker}.
 */
final class ChaosRun {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Duration MAX_HOLD = Duration.ofMillis(100);
    private static final double PAUSE_IN_LEASES = 2.5;

    /** What a run found. */
    record Result(String backend, String strategy, Duration took, Checker.Verdict verdict, Path dir) {
    }

    private final ChaosBackend backend;
    private final String strategy;
    private final ChaosSettings settings;
    private final Resource resource;
    private final String resourceUrl;
    private final Path dir;
    private final List<HolderProcess> holders = new ArrayList<>();
    private final Set<String> killed = new HashSet<>();
    private String runId;
    private String config;
    private History controller;

    ChaosRun(ChaosBackend backend, String strategy, ChaosSettings settings, Resource resource, String resourceUrl, Path dir) {
        this.backend = backend;
        this.strategy = strategy;
        this.settings = settings;
        this.resource = resource;
        this.resourceUrl = resourceUrl;
        this.dir = dir;
    }

    Result execute() throws Exception {
        long began = System.nanoTime();
        Files.createDirectories(dir);
        runId = dir.getFileName().toString();
        resource.prepare(runId);
        config = backend.holderConfig(strategy, runId);
        Map<String, String> ends = new LinkedHashMap<>();
        try (History log = History.append(dir.resolve("controller.history"), Event.CONTROLLER)) {
            controller = log;
            for (int i = 0; i < settings.holders(); i++) {
                startHolder();
            }
            awaitGrants(0, Duration.ofSeconds(120));
            long end = System.nanoTime() + settings.duration().toNanos();
            do {
                for (FaultKind fault : cycle()) {
                    inject(fault);
                }
            } while (System.nanoTime() < end);
            holders.forEach(HolderProcess::requestStop);
            for (HolderProcess h : holders) {
                if (h.killed()) {
                    continue;
                }
                Optional<Integer> status = h.awaitStop(60);
                ends.put(h.id(), status.isEmpty() ? "did not stop within 60 s of STOP; killed. Output: " + h.output()
                        : status.get() != 0 ? "exited with status " + status.get() + ": " + h.output() : null);
            }
        } finally {
            holders.stream().filter(HolderProcess::alive).forEach(HolderProcess::kill);
        }
        List<Event> events = new ArrayList<>(History.read(dir.resolve("controller.history")));
        for (HolderProcess h : holders) {
            events.addAll(History.read(h.history()));
        }
        Checker.Limits limits = new Checker.Limits(backend.deadHolderBound(settings.lease()), settings.slack(),
                backend.pausedHolderKeepsLock(strategy), backend.exclusionGapAfterBackendFault(strategy, settings.lease()),
                settings.recoveryBound());
        Checker.Verdict verdict = Checker.check(new Checker.Observations(events, resource.writes(runId),
                resource.value(runId), killed, ends, limits));
        Result result = new Result(backend.name(), strategy, Duration.ofNanos(System.nanoTime() - began), verdict, dir);
        Files.writeString(dir.resolve("verdict.txt"), Report.details(result));
        return result;
    }

    private List<FaultKind> cycle() {
        List<FaultKind> cycle = new ArrayList<>(List.of(FaultKind.KILL_HOLDER, FaultKind.PAUSE_HOLDER));
        cycle.addAll(backend.backendFaults());
        return cycle;
    }

    private void startHolder() {
        String id = "holder-" + (holders.size() + 1);
        holders.add(HolderProcess.start(new HolderSpec(id, backend.getClass().getName(), config, "chaos", settings.lease(), WAIT,
                MAX_HOLD, dir.resolve(id + ".history"), resourceUrl, runId)));
    }

    private void inject(FaultKind fault) throws Exception {
        long end;
        if (fault.backend()) {
            controller.log(Event.Kind.FAULT_BEGIN, 0, fault.name());
            String what = backend.inject(fault, settings.lease());
            end = System.nanoTime();
            controller.log(end, Event.Kind.FAULT_END, 0, fault.name() + " " + what);
        } else {
            HolderProcess victim = victim(fault == FaultKind.PAUSE_HOLDER);
            String detail = fault.name() + " " + victim.id();
            controller.log(Event.Kind.FAULT_BEGIN, 0, detail);
            if (fault == FaultKind.KILL_HOLDER) {
                victim.kill();
                killed.add(victim.id());
                end = System.nanoTime();
                controller.log(end, Event.Kind.FAULT_END, 0, detail);
                startHolder();
            } else {
                victim.pause();
                try {
                    Thread.sleep((long) (backend.deadHolderBound(settings.lease()).toMillis() * PAUSE_IN_LEASES));
                } finally {
                    victim.resume();
                }
                end = System.nanoTime();
                controller.log(end, Event.Kind.FAULT_END, 0, detail);
            }
        }
        awaitGrants(end, settings.recoveryBound());
    }

    /**
     * @param inHold whether to prefer a holder in the hold of its round (a pause there is followed by a validity
     *     check) over one anywhere between grant and release
     * @return a live holder, one holding the lock if one is seen doing so within a few seconds
     */
    private HolderProcess victim(boolean inHold) throws InterruptedException {
        List<HolderProcess> live = holders.stream().filter(HolderProcess::alive).toList();
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        long preferUntil = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        while (System.nanoTime() < deadline) {
            boolean picky = inHold && System.nanoTime() < preferUntil;
            for (HolderProcess h : live) {
                if (picky ? h.inHold() : h.holding()) {
                    return h;
                }
            }
            Thread.sleep(2);
        }
        return live.get(ThreadLocalRandom.current().nextInt(live.size()));
    }

    /** Waits until every live holder logged a grant after {@code since}, or the bound passed (the checker judges). */
    private void awaitGrants(long since, Duration bound) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        Set<String> done = new HashSet<>();
        while (System.nanoTime() < deadline) {
            boolean all = true;
            for (HolderProcess h : holders) {
                if (!h.alive() || done.contains(h.id())) {
                    continue;
                }
                if (History.tail(h.history()).stream().anyMatch(e -> e.kind() == Event.Kind.GRANT && e.nanos() > since)) {
                    done.add(h.id());
                } else {
                    all = false;
                }
            }
            if (all) {
                return;
            }
            Thread.sleep(50);
        }
    }
}
