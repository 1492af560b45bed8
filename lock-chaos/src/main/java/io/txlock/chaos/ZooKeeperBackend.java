package io.txlock.chaos;

import io.txlock.spi.LockProvider;
import io.txlock.zookeeper.ZooKeeperLockProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.client.FourLetterWordMain;

/**
 * ZooKeeper: a three-server ensemble in the controller's JVM (Curator's {@code TestingCluster}), with a follower
 * and then the leader killed and restarted. Holder configuration: {@code <connect string> <base path>}; each holder
 * has its own session of {@value #SESSION_TIMEOUT_MS} ms.
 */
final class ZooKeeperBackend implements ChaosBackend {

    static final int SESSION_TIMEOUT_MS = 4000;
    private static final int TICK_MS = 250;
    private static final Duration ELECTION = Duration.ofSeconds(60);

    private TestingCluster cluster;

    /** For {@link Backends} and holder JVMs. */
    ZooKeeperBackend() {
    }

    @Override
    public String name() {
        return "zookeeper";
    }

    @Override
    public List<String> strategies() {
        return List.of("EPHEMERAL_SEQUENTIAL");
    }

    @Override
    public void start(Path dir) throws Exception {
        System.setProperty("zookeeper.4lw.commands.whitelist", "*");
        InstanceSpec[] specs = new InstanceSpec[3];
        for (int i = 0; i < specs.length; i++) {
            Map<String, Object> properties = new HashMap<>();
            properties.put("maxSessionTimeout", "60000");
            Path data = Files.createDirectories(dir.resolve("zk" + (i + 1)));
            specs[i] = new InstanceSpec(data.toFile(), -1, -1, -1, true, i + 1, TICK_MS, -1, properties);
        }
        cluster = new TestingCluster(specs);
        cluster.start();
        leader();
    }

    @Override
    public String holderConfig(String strategy, String runId) {
        return cluster.getConnectString() + " /chaos-" + runId;
    }

    @Override
    public LockProvider provider(String config) throws Exception {
        String[] parts = config.split(" ", 2);
        CuratorFramework client = CuratorFrameworkFactory.builder().connectString(parts[0])
                .sessionTimeoutMs(SESSION_TIMEOUT_MS).connectionTimeoutMs(3000).retryPolicy(new RetryNTimes(3, 200)).build();
        client.start();
        if (!client.blockUntilConnected(60, TimeUnit.SECONDS)) {
            client.close();
            throw new IllegalStateException("no connection to ZooKeeper at " + parts[0]);
        }
        return ZooKeeperLockProvider.builder(client).basePath(parts[1]).closeClient(true).build();
    }

    @Override
    public List<FaultKind> backendFaults() {
        return List.of(FaultKind.KILL_MEMBER, FaultKind.KILL_LEADER);
    }

    @Override
    public String inject(FaultKind fault, Duration lease) throws Exception {
        InstanceSpec leader = leader();
        InstanceSpec victim = switch (fault) {
            case KILL_LEADER -> leader;
            case KILL_MEMBER -> cluster.getInstances().stream().filter(s -> !s.equals(leader)).findFirst().orElseThrow();
            default -> throw new IllegalArgumentException("zookeeper has no fault " + fault);
        };
        if (!cluster.killServer(victim)) {
            throw new IllegalStateException("could not kill ZooKeeper server " + victim.getServerId());
        }
        leader();
        if (!cluster.restartServer(victim)) {
            throw new IllegalStateException("could not restart ZooKeeper server " + victim.getServerId());
        }
        return "server " + victim.getServerId();
    }

    /** @return the current leader, once the ensemble has one (within a minute) */
    private InstanceSpec leader() throws InterruptedException {
        long deadline = System.nanoTime() + ELECTION.toNanos();
        while (System.nanoTime() < deadline) {
            for (InstanceSpec spec : cluster.getInstances()) {
                try {
                    if (FourLetterWordMain.send4LetterWord(spec.getHostname(), spec.getPort(), "srvr").contains("Mode: leader")) {
                        return spec;
                    }
                } catch (Exception down) {
                    // ask the next one
                }
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the ZooKeeper ensemble elected no leader within " + ELECTION);
    }

    /** A dead holder keeps its lock until its session expires. */
    @Override
    public Duration deadHolderBound(Duration lease) {
        return Duration.ofMillis(SESSION_TIMEOUT_MS);
    }

    @Override
    public void close() {
        if (cluster != null) {
            try {
                cluster.close();
            } catch (Exception e) {
                throw new IllegalStateException("could not stop the ZooKeeper ensemble", e);
            }
        }
    }
}
