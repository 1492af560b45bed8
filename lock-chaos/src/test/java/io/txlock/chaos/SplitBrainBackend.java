package io.txlock.chaos;

import io.txlock.spi.LockProvider;
import java.nio.file.Path;
import java.util.List;

/**
 * A broken backend, to show that the suite catches a broken lock end to end: Redis, but every holder JVM locks
 * under a key prefix of its own, so that every holder is granted the lock at once.
 */
final class SplitBrainBackend implements ChaosBackend {

    private final RedisBackend redis = new RedisBackend();

    SplitBrainBackend() {
    }

    @Override
    public String name() {
        return "split-brain";
    }

    @Override
    public List<String> strategies() {
        return List.of("PREFIX_PER_HOLDER");
    }

    @Override
    public void start(Path dir) throws Exception {
        redis.start(dir);
    }

    @Override
    public String holderConfig(String strategy, String runId) {
        return redis.holderConfig(strategy, runId);
    }

    @Override
    public LockProvider provider(String config) {
        return redis.provider(config + ProcessHandle.current().pid() + ":");
    }

    @Override
    public List<FaultKind> backendFaults() {
        return List.of();
    }

    @Override
    public String inject(FaultKind fault, java.time.Duration lease) {
        throw new IllegalArgumentException("no backend faults");
    }

    @Override
    public void close() {
        redis.close();
    }
}
