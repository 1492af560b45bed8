package io.txlock.chaos;

import io.etcd.jetcd.Client;
import io.txlock.etcd.EtcdLockProvider;
import io.txlock.servers.PrivateEtcd;
import io.txlock.spi.LockProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * etcd: a three-member cluster of private {@code etcd} processes, with a follower and then the leader killed
 * ({@code kill -9}) and restarted on their data. Holder configuration: {@code <client urls> <key prefix>}.
 */
final class EtcdBackend implements ChaosBackend {

    private static final Duration TIMEOUT = Duration.ofSeconds(3);

    private PrivateEtcd cluster;

    /** For {@link Backends} and holder JVMs. */
    EtcdBackend() {
    }

    @Override
    public String name() {
        return "etcd";
    }

    @Override
    public List<String> strategies() {
        return List.of("LEASE_REVISION");
    }

    @Override
    public void start(Path dir) throws Exception {
        cluster = PrivateEtcd.start(dir, 3, 100);
    }

    @Override
    public String holderConfig(String strategy, String runId) {
        return cluster.endpoints() + " /chaos-" + runId + "/";
    }

    @Override
    public LockProvider provider(String config) {
        String[] parts = config.split(" ", 2);
        Client client = Client.builder().endpoints(parts[0].split(",")).connectTimeout(TIMEOUT).build();
        return EtcdLockProvider.builder(client).keyPrefix(parts[1]).requestTimeout(TIMEOUT).closeClient(true).build();
    }

    @Override
    public List<FaultKind> backendFaults() {
        return List.of(FaultKind.KILL_MEMBER, FaultKind.KILL_LEADER);
    }

    @Override
    public String inject(FaultKind fault, Duration lease) throws Exception {
        int leader = cluster.leader();
        int victim = switch (fault) {
            case KILL_LEADER -> leader;
            case KILL_MEMBER -> (leader + 1) % cluster.members().size();
            default -> throw new IllegalArgumentException("etcd has no fault " + fault);
        };
        cluster.members().get(victim).crash();
        cluster.leader();
        cluster.members().get(victim).start();
        return "member m" + (victim + 1);
    }

    /** A dead holder keeps its lock until its etcd lease runs out: the lease rounded up to whole seconds. */
    @Override
    public Duration deadHolderBound(Duration lease) {
        return Duration.ofSeconds((lease.toMillis() + 999) / 1000);
    }

    @Override
    public void close() {
        if (cluster != null) {
            cluster.close();
        }
    }
}
