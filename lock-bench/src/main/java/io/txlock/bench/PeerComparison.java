package io.txlock.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * txlock against its peers (what a user would pick instead, {@link Peer}) in the same run: per scenario result the
 * ratio to the best peer, and per backend the best txlock strategy against the best peer. Throughput is better
 * higher, a handoff p99 lower. Only issue 14 sets targets against peers: uncontended ({@code keys}) at least 1.5 x
 * ShedLock for the row-writing strategies on PostgreSQL and MariaDB, and at least 1.0 x Curator on ZooKeeper; every
 * other ratio is shown, not judged.
 */
final class PeerComparison {

    /** Issue 14: OPTIMISTIC_VERSION and UNIQUE_INSERT uncontended, at least 1.5 x ShedLock on PostgreSQL and MariaDB. */
    static final double SHEDLOCK_TARGET = 1.5;
    /** Issue 14: ZooKeeper uncontended, at least 1.0 x Curator's InterProcessMutex. */
    static final double CURATOR_TARGET = 1.0;

    private static final Set<String> ROW_WRITING = Set.of("OPTIMISTIC_VERSION", "UNIQUE_INSERT");

    private PeerComparison() {
    }

    /**
     * @param handoff whether the figure is the handoff p99 (lower is better) rather than throughput
     * @param peers the peers' measurements
     * @return the best peer by that figure, if any measured it
     */
    static Optional<Measurement> best(boolean handoff, List<Measurement> peers) {
        if (handoff) {
            return peers.stream().filter(m -> m.handoff().count() > 0).min(Comparator.comparingDouble(m -> m.handoff().p99()));
        }
        return peers.stream().max(Comparator.comparingDouble(Measurement::throughput));
    }

    /**
     * @param scenario the scenario id
     * @param kind the backend
     * @param strategy txlock's strategy
     * @param txlock txlock's figures
     * @param peers the peers' figures, same run
     * @return txlock against the best peer (and against ShedLock where issue 14 sets a target), nothing without peers
     */
    static List<Target> targets(String scenario, BackendKind kind, String strategy, Measurement txlock, List<Measurement> peers) {
        List<Target> targets = new ArrayList<>();
        boolean handoff = scenario.equals("handoff");
        best(handoff, peers).ifPresent(best -> {
            boolean curator = kind == BackendKind.ZOOKEEPER && scenario.equals("keys");
            targets.add(Target.ratio("txlock/best peer (" + best.way() + ") " + figure(handoff), ratio(handoff, txlock, best),
                    curator ? CURATOR_TARGET : 1.0, !handoff, curator));
        });
        if (scenario.equals("keys") && (kind == BackendKind.POSTGRESQL || kind == BackendKind.MARIADB) && ROW_WRITING.contains(strategy)) {
            peers.stream().filter(m -> m.way().equals(ShedLockPeer.NAME)).findFirst().ifPresent(shedLock -> targets.add(
                    Target.ratio("txlock/ShedLock throughput", ratio(false, txlock, shedLock), SHEDLOCK_TARGET, true, true)));
        }
        return targets;
    }

    private static String figure(boolean handoff) {
        return handoff ? "handoff p99" : "throughput";
    }

    /** @return txlock over the peer: throughput, or handoff p99 (NaN if either has no handoff) */
    static double ratio(boolean handoff, Measurement txlock, Measurement peer) {
        if (handoff) {
            return txlock.handoff().count() == 0 || peer.handoff().count() == 0 ? Double.NaN : txlock.handoff().p99() / peer.handoff().p99();
        }
        return txlock.throughput() / peer.throughput();
    }

    /**
     * One line of "txlock / best peer" for a backend and scenario.
     *
     * @param backend the backend's name
     * @param scenario the scenario id
     * @param figure "throughput (ops/s)" or "handoff p99 (µs)"
     * @param strategy txlock's best strategy by that figure
     * @param txlock its figure
     * @param peer the best peer's name
     * @param peerValue its figure
     * @param ratio txlock over the peer
     */
    record Line(String backend, String scenario, String figure, String strategy, double txlock, String peer, double peerValue,
            double ratio) {

        /** @return whether this is a handoff p99, where lower is better */
        boolean handoff() {
            return scenario.equals("handoff");
        }

        /** @return txlock's figure as the report shows it */
        String formatTxlock() {
            return handoff() ? Format.latency(txlock) : Format.rate(txlock);
        }

        /** @return the ratio as the report shows it: "0.42x", or "not measured" */
        String formatRatio() {
            return Double.isNaN(ratio) ? "not measured" : Target.format(ratio);
        }

        /** @return the peer's figure as the report shows it */
        String formatPeer() {
            return handoff() ? Format.latency(peerValue) : Format.rate(peerValue);
        }
    }

    /**
     * @param results every result of a run
     * @return per backend and scenario (orders, keys, handoff), txlock's best lock strategy against the best peer; CLAIM,
     *     which is not a lock, is left out
     */
    static List<Line> lines(List<ScenarioResult> results) {
        Map<String, List<ScenarioResult>> byGroup = new LinkedHashMap<>();
        for (ScenarioResult r : results) {
            if (!r.peers().isEmpty() && !r.strategy().equals(OrdersScenario.CLAIM)) {
                byGroup.computeIfAbsent(r.backend() + " " + r.scenario(), k -> new ArrayList<>()).add(r);
            }
        }
        List<Line> lines = new ArrayList<>();
        for (List<ScenarioResult> group : byGroup.values()) {
            ScenarioResult first = group.get(0);
            boolean handoff = first.scenario().equals("handoff");
            Comparator<ScenarioResult> better = handoff
                    ? Comparator.comparingDouble((ScenarioResult r) -> r.way("txlock").handoff().count() == 0 ? -Double.MAX_VALUE
                            : -r.way("txlock").handoff().p99())
                    : Comparator.comparingDouble((ScenarioResult r) -> r.way("txlock").throughput());
            ScenarioResult txlock = group.stream().max(better).orElseThrow();
            Optional<Measurement> peer = best(handoff, first.peers());
            if (peer.isEmpty()) {
                continue;
            }
            Measurement t = txlock.way("txlock");
            Measurement p = peer.get();
            lines.add(new Line(first.backend(), first.scenario(), handoff ? "handoff p99 (µs)" : "throughput (ops/s)", txlock.strategy(),
                    handoff ? t.handoff().p99() : t.throughput(), p.way(), handoff ? p.handoff().p99() : p.throughput(),
                    ratio(handoff, t, p)));
        }
        return lines;
    }
}
