package io.txlock.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Runs the chosen scenarios on each chosen backend and strategy, and collects the report. */
final class BenchRun {

    /** Every scenario, in the order they run by default. */
    static final List<Scenario> SCENARIOS = List.of(new OrdersScenario(), new CounterScenario(), new ManyKeysScenario(),
            new HandoffScenario());

    private BenchRun() {
    }

    /**
     * @param id a scenario id
     * @return the scenario
     * @throws IllegalArgumentException listing the ids
     */
    static Scenario scenario(String id) {
        return SCENARIOS.stream().filter(s -> s.id().equalsIgnoreCase(id.strip())).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown scenario '" + id + "': use one of "
                        + SCENARIOS.stream().map(Scenario::id).toList()));
    }

    /**
     * @param config what to run
     * @param command the command line, for the report
     * @param progress where to show progress
     * @return the report; {@link BenchReport#passed()} is false if a checker found a violation, a backend failed or a
     *     txlock run proved nothing ({@link ScenarioResult#unproven()})
     */
    static BenchReport run(BenchConfig config, String command, Progress progress) {
        Instant started = Instant.now();
        long begin = System.nanoTime();
        String loadAtStart = MachineInfo.loadAverage();
        List<BenchReport.BackendInfo> backends = new ArrayList<>();
        List<ScenarioResult> results = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        List<String> warmupFailures = new ArrayList<>();
        for (BackendSpec spec : config.backends()) {
            try (Backend backend = Backends.open(spec, config.connections(), config.rowLockConnections(), config.processes() > 0, config.lease())) {
                backends.add(new BenchReport.BackendInfo(spec.kind().cliName(), backend.describe()));
                progress.note(spec.kind().cliName() + ": " + backend.describe());
                List<String> strategies = strategies(backend, config.strategies());
                if (config.jitWarmup()) {
                    warmUp(backend, strategies, config, progress, errors, warmupFailures);
                }
                for (String id : config.scenarios()) {
                    Scenario scenario = scenario(id);
                    try {
                        List<ScenarioResult> found = scenario.run(backend, strategies, config, progress);
                        results.addAll(found);
                        for (ScenarioResult r : found) {
                            progress.note(ConsoleTable.oneLine(r));
                            String unproven = r.unproven();
                            if (unproven != null) {
                                errors.add(spec.kind().cliName() + " " + r.strategy() + " " + id + ": " + unproven);
                            }
                        }
                    } catch (Exception e) {
                        errors.add(spec.kind().cliName() + " " + id + ": " + e);
                        progress.note("  " + spec.kind().cliName() + " " + id + " FAILED TO RUN: " + e);
                    }
                }
            } catch (Exception e) {
                errors.add(spec.kind().cliName() + ": " + e.getMessage());
                progress.note(spec.kind().cliName() + ": could not run: " + e.getMessage());
            }
        }
        return new BenchReport(command, started, (System.nanoTime() - begin) / 1e9, MachineInfo.current(), loadAtStart,
                MachineInfo.loadAverage(), backends, results, errors, warmupFailures);
    }

    /**
     * Runs every scenario once, briefly, for every strategy, so that no strategy's measured runs pay for compiling its
     * own code (or recompiling the core's call sites it makes polymorphic); keeps nothing but safety failures.
     */
    private static void warmUp(Backend backend, List<String> strategies, BenchConfig config, Progress progress, List<String> errors,
            List<String> failures) {
        BenchConfig brief = config.forJitWarmup();
        progress.note("  JIT warm-up: every scenario and strategy once, " + brief.timing().duration().toMillis() + " ms, unmeasured");
        for (String id : config.scenarios()) {
            try {
                for (ScenarioResult r : scenario(id).run(backend, strategies, brief, progress)) {
                    r.failures().forEach(f -> failures.add(backend.kind().cliName() + " " + r.strategy() + " " + id + " (JIT warm-up): " + f));
                }
            } catch (Exception e) {
                errors.add(backend.kind().cliName() + " " + id + " (JIT warm-up): " + e);
            }
        }
    }

    /** The asked strategies this backend offers; all it offers if none were asked for or none of them apply. */
    private static List<String> strategies(Backend backend, List<String> asked) {
        List<String> offered = backend.strategies();
        List<String> chosen = asked.stream().map(s -> s.strip().toUpperCase(java.util.Locale.ROOT))
                .filter(offered::contains).toList();
        return chosen.isEmpty() ? offered : chosen;
    }
}
