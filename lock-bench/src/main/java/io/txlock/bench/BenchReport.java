package io.txlock.bench;

import java.time.Instant;
import java.util.List;

/**
 * Everything a bench run found, for the terminal table, the HTML page and the JSON file.
 *
 * @param command the command line that produced it
 * @param started when the run started
 * @param seconds how long it took
 * @param machine the machine
 * @param loadAtStart the load average when it started
 * @param loadAtEnd the load average when it ended
 * @param backends each backend with its server and driver versions
 * @param results every scenario result
 * @param errors backends or scenarios that could not run at all, and txlock runs that proved nothing
 * @param warmupFailures safety failures found during the unmeasured JIT warm-up runs
 */
public record BenchReport(String command, Instant started, double seconds, MachineInfo machine, String loadAtStart,
        String loadAtEnd, List<BackendInfo> backends, List<ScenarioResult> results, List<String> errors,
        List<String> warmupFailures) {

    /** @return whether the checker found every run that ran safe, warm-up included */
    public boolean safe() {
        return warmupFailures.isEmpty() && results.stream().allMatch(ScenarioResult::passed);
    }

    /** @return whether every run was safe and nothing failed to run */
    public boolean passed() {
        return safe() && errors.isEmpty();
    }

    /**
     * A backend as the report names it.
     *
     * @param name the command-line name
     * @param describe server and driver versions
     */
    public record BackendInfo(String name, String describe) {
    }
}
