package io.txlock.bench;

import java.util.List;
import java.util.Set;

/**
 * One scenario on one backend and strategy: the figures of each way, the targets, and what went wrong.
 *
 * @param backend the backend's command-line name
 * @param strategy the strategy
 * @param scenario the scenario id
 * @param settings the scenario's settings, e.g. "8 workers, 1 name, hold 0 µs"
 * @param measurements txlock first, then its yardstick (floor or seed) if any, the safe floor of a handoff whose floor is
 *     no safe lock (see {@link RawLocks#safeHandoffFloor()}), then the peers (named after themselves)
 * @param targets the run against docs/design.md's targets: txlock against the yardstick first, if there is one; then
 *     others (zero deadlocks under txlock)
 * @param kill the killed holder's story, or null
 * @param failures safety failures (overlaps, token regressions, lost updates, duplicates under txlock);
 *     empty if the run was safe
 */
public record ScenarioResult(String backend, String strategy, String scenario, String settings, List<Measurement> measurements,
        List<Target> targets, KillReport kill, List<String> failures) {

    /** The ways that are not peers. */
    private static final Set<String> OWN_WAYS = Set.of("txlock", "floor", LockScenario.SAFE_FLOOR, "seed");

    /** @return the peers' figures: what a user would pick instead of txlock, measured in the same run */
    public List<Measurement> peers() {
        return measurements.stream().filter(m -> !OWN_WAYS.contains(m.way())).toList();
    }

    /** @return whether the run was safe */
    public boolean passed() {
        return failures.isEmpty();
    }

    /**
     * @return why txlock's run proves nothing, or null: it finished no operation in the measured window, or gave up
     *     (timed out, failed) more operations than it finished; the checker passes such a run on next to nothing
     */
    public String unproven() {
        Measurement txlock = way("txlock");
        if (txlock == null) {
            return null;
        }
        String counts = txlock.finished() + " finished and " + txlock.givenUp() + " timed out or failed in the whole run";
        if (txlock.ops() == 0) {
            return "txlock finished no operation in the measured window (" + counts + "): the run proves nothing";
        }
        if (txlock.givenUp() > txlock.finished()) {
            return "txlock gave up more operations than it finished (" + counts + "): the run proves little";
        }
        return null;
    }

    /** @return txlock against its yardstick, or null if the scenario has none */
    public Target ratio() {
        return targets.stream().filter(t -> t.kind() == Target.Kind.RATIO).findFirst().orElse(null);
    }

    /**
     * @param way "txlock", "floor", "safe floor", "seed" or a peer's name
     * @return that way's figures, or null
     */
    public Measurement way(String way) {
        return measurements.stream().filter(m -> m.way().equals(way)).findFirst().orElse(null);
    }
}
