package io.txlock.bench;

/**
 * Scenario (3): workers spread over many lock names, so locks are mostly uncontended; txlock's lock + unlock
 * cycle against the bare cycle of the same backend and strategy.
 */
final class ManyKeysScenario extends LockScenario {

    /** docs/design.md: an uncontended cycle at least 0.9 x the raw round trip of the same backend. */
    static final double TARGET = 0.9;

    @Override
    public String id() {
        return "keys";
    }

    @Override
    public String title() {
        return "many keys: workers spread over K lock names (mostly uncontended lock + unlock)";
    }

    @Override
    int workers(BenchConfig config) {
        return config.workers();
    }

    @Override
    int names(BenchConfig config) {
        return config.keys();
    }

    @Override
    Floor floor() {
        return Floor.CYCLE;
    }

    @Override
    Target ratio(Measurement txlock, Measurement floor, Backend backend) {
        return Target.ratio("txlock/floor throughput", txlock.throughput() / floor.throughput(), TARGET, true, true);
    }
}
