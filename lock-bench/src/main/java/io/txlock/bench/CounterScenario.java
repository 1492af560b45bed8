package io.txlock.bench;

/** Scenario (2): N workers increment one shared value under one lock; lost updates are counted. */
final class CounterScenario extends LockScenario {

    @Override
    public String id() {
        return "counter";
    }

    @Override
    public String title() {
        return "shared counter: every worker increments one value under one lock";
    }

    @Override
    int workers(BenchConfig config) {
        return config.workers();
    }

    @Override
    int names(BenchConfig config) {
        return 1;
    }

    @Override
    Floor floor() {
        return Floor.NONE;
    }

    @Override
    Target ratio(Measurement txlock, Measurement floor, Backend backend) {
        return null;
    }
}
