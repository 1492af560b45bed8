package io.txlock.bench;

/**
 * Scenario (4): 8 workers on one name; the handoff latency from one holder's end to the next waiting holder's
 * start, against the backend's own blocking handoff.
 */
final class HandoffScenario extends LockScenario {

    /** docs/design.md: contended handoff p99 no worse than 2 x the raw backend's own handoff. */
    static final double TARGET = 2.0;

    @Override
    public String id() {
        return "handoff";
    }

    @Override
    public String title() {
        return "contention: workers on one name, handoff latency from one holder to the next";
    }

    @Override
    int workers(BenchConfig config) {
        return config.handoffWorkers();
    }

    @Override
    int names(BenchConfig config) {
        return 1;
    }

    @Override
    Floor floor() {
        return Floor.BLOCKING;
    }

    @Override
    Target ratio(Measurement txlock, Measurement floor, Backend backend) {
        double value = floor.handoff().count() == 0 || txlock.handoff().count() == 0 ? Double.NaN
                : txlock.handoff().p99() / floor.handoff().p99();
        return Target.ratio("txlock/floor handoff p99", value, TARGET, false, true);
    }
}
