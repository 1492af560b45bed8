package io.txlock.chaos;

import io.txlock.spi.LockProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * One backend of the chaos suite, both sides of it: the controller starts the backend's private servers and
 * injects its faults; each holder JVM builds its provider from the configuration string the controller hands it.
 * A new backend (etcd, for example) is one class implementing this interface with a public no-argument
 * constructor, added to {@link Backends}.
 */
interface ChaosBackend extends AutoCloseable {

    /** @return the backend's name in settings and the report, e.g. {@code postgresql} */
    String name();

    /** @return the strategies it supports, the first being its default; backends without strategies return their one mechanism */
    List<String> strategies();

    /**
     * Controller side: starts the backend's private servers, each on a free loopback port.
     *
     * @param dir where their data and logs go (under target/)
     * @throws Exception if a server cannot be started: a failure, never a skip
     */
    void start(Path dir) throws Exception;

    /**
     * Controller side: prepares a run (tables, paths) and says how holders reach the backend.
     *
     * @param strategy one of {@link #strategies()}
     * @param runId unique per run, usable in names and key prefixes
     * @return a single line, given to {@link #provider(String)} in every holder JVM
     * @throws Exception if the backend cannot be prepared
     */
    String holderConfig(String strategy, String runId) throws Exception;

    /**
     * Holder side: called in a fresh instance inside the holder JVM.
     *
     * @param config what {@link #holderConfig} returned
     * @return the provider the holder's lock manager uses
     * @throws Exception if it cannot be built
     */
    LockProvider provider(String config) throws Exception;

    /** @return the backend faults of one cycle, in order */
    List<FaultKind> backendFaults();

    /**
     * Controller side: injects a backend fault and returns once the backend serves again.
     *
     * @param fault one of {@link #backendFaults()}
     * @param lease the holders' lease, which sets how long a server pause lasts
     * @return what was hit, for the history (a port, a member)
     * @throws Exception if the backend could not be brought back
     */
    String inject(FaultKind fault, Duration lease) throws Exception;

    /**
     * @param lease the holders' lease
     * @return how long the lock of a holder that died may stay taken: the lease, or a session timeout
     */
    default Duration deadHolderBound(Duration lease) {
        return lease;
    }

    /**
     * @param strategy the run's strategy
     * @return whether a paused (not dead) holder keeps the lock for as long as it is paused, by design: a row lock
     *     lives as long as its connection, whatever the lease
     */
    default boolean pausedHolderKeepsLock(String strategy) {
        return false;
    }

    /**
     * A documented limit: after a restart of the server ({@link FaultKind#RESTART_SERVER}), how long a holder granted
     * before it may still see
     * {@code isValid() == true} while another holder is granted. {@link Duration#ZERO} where there is none.
     *
     * @param strategy the run's strategy
     * @param lease the holders' lease
     * @return the window, counted from the end of the fault
     */
    default Duration exclusionGapAfterBackendFault(String strategy, Duration lease) {
        return Duration.ZERO;
    }

    /** Stops every server this backend started. */
    @Override
    void close();
}
