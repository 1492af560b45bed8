package io.txlock.bench;

import java.util.List;

/** One of the bench's scenarios, run on one backend for each of its strategies. */
interface Scenario {

    /** @return the id used by {@code --scenarios} */
    String id();

    /** @return a one-line title */
    String title();

    /**
     * @param backend the backend, in its namespace
     * @param strategies the strategies to run
     * @param config the run's settings
     * @param progress where to report
     * @return one result per strategy
     * @throws Exception if the backend failed in a way the scenario cannot count
     */
    List<ScenarioResult> run(Backend backend, List<String> strategies, BenchConfig config, Progress progress) throws Exception;
}
