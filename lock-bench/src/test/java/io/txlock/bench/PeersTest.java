package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every peer contender of every backend (ShedLock and JdbcLockRegistry on H2, PostgreSQL, MariaDB and MySQL
 * Connector/J; Redisson on the machine's Redis; Curator on an embedded ZooKeeper) runs a few contended cycles, four
 * workers on one name spread over two nodes, and excludes: the checker finds no two holders inside at once, and
 * the shared counter, read and written back inside every section with a pause between, lost no increment.
 */
class PeersTest {

    private static final int WORKERS = 4;
    private static final int NODES = 2;

    @ParameterizedTest
    @EnumSource(value = BackendKind.class, names = {"H2", "POSTGRESQL", "MARIADB", "MYSQL", "REDIS", "ZOOKEEPER"})
    void everyPeerExcludesAcrossNodes(BackendKind kind) throws Exception {
        try (Backend backend = Backends.open(BackendSpec.defaults(kind), 2 * WORKERS + 4, WORKERS + 2, false, Duration.ofSeconds(10))) {
            List<String> expected = switch (kind) {
                case REDIS -> List.of(RedissonPeer.NAME);
                case ZOOKEEPER -> List.of(CuratorPeer.NAME);
                default -> List.of(ShedLockPeer.NAME, JdbcLockRegistryPeer.NAME);
            };
            assertThat(backend.peers()).extracting(Peer::name).containsExactlyElementsOf(expected);
            for (Peer peer : backend.peers()) {
                Path counters = Files.createTempFile("txlock-peers-test-", ".bin");
                try {
                    LockWorkload workload = new LockWorkload("peer-test", 1, Duration.ofMillis(1), counters, Duration.ofSeconds(20),
                            Duration.ofSeconds(10));
                    ClusterOutcome outcome;
                    try (Peer.Nodes nodes = peer.open(NODES, workload)) {
                        outcome = ThreadCluster.run(WORKERS, nodes::locker, workload, new Timing(Duration.ZERO, Duration.ofMillis(500)),
                                Progress.silent());
                    }
                    FileCounters.Total total;
                    try (FileCounters c = new FileCounters(counters)) {
                        total = c.total();
                    }
                    String what = kind + " " + peer.name();
                    assertThat(outcome.errorExamples()).as(what).isEmpty();
                    assertThat(outcome.timeouts()).as(what).isZero();
                    assertThat(outcome.sections()).as(what + ": a few cycles").hasSizeGreaterThanOrEqualTo(2);
                    assertThat(Checker.check(outcome.sections()).passed()).as(what + ": " + Checker.check(outcome.sections()).summary())
                            .isTrue();
                    LostUpdates lost = LostUpdates.count(outcome.sections(), total, null);
                    assertThat(lost.lost()).as(what + ": lost updates").isZero();
                    assertThat(total.count()).as(what + ": every section counted").isEqualTo(outcome.sections().size());
                } finally {
                    Files.deleteIfExists(counters);
                }
            }
        }
    }
}
