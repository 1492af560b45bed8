package io.txlock.bench;

import java.util.List;
import java.util.Optional;

/**
 * One backend of a run, in a namespace of its own: where the locks live, where the orders of the idempotency
 * scenario are stored, and what its raw floor is. Each scenario run opens what it needs and closes it, so runs
 * never share connections or lock rows.
 */
public interface Backend extends AutoCloseable {

    /** @return the kind */
    BackendKind kind();

    /** @return the server and driver versions, for the report */
    String describe();

    /** @return the strategies this backend offers, in the order they run by default */
    List<String> strategies();

    /**
     * Opens a simulated cluster of {@code nodes} application nodes, each with its own lock manager, sharing the
     * backend's connections (as many as it was opened with).
     *
     * @param strategy one of {@link #strategies()}
     * @param nodes how many lock managers
     * @return the site; close it after the run
     */
    Site openSite(String strategy, int nodes);

    /**
     * @param strategy one of {@link #strategies()}
     * @return the backend's raw lock, without txlock, or empty if it has none worth measuring
     */
    Optional<RawLocks> openRaw(String strategy);

    /**
     * @param site a site of this backend
     * @param wait how long a claim waits for a concurrent claim of the same key
     * @return txlock's idempotency claims in the site's business database, if this backend is that database
     */
    default Optional<io.txlock.jdbc.JdbcClaims> claims(Site site, java.time.Duration wait) {
        return Optional.empty();
    }

    /**
     * @return what a user would pick instead of txlock on this backend, measured beside it as yardsticks; none by
     *     default
     */
    default List<Peer> peers() {
        return List.of();
    }

    /**
     * Opens what reads the server's CPU and request count around a measured window (a connection of its own, if
     * it needs one). By default nothing is read.
     *
     * @return the server's usage; close it after the scenario
     */
    default ServerUsage openServerUsage() {
        return ServerUsage.none(kind().cliName() + " has no server to read");
    }

    /** @return what a worker JVM needs to reach this backend's namespace */
    BackendSpec childSpec();

    /**
     * Creates what worker JVMs of {@code strategy} expect to find (they only connect).
     *
     * @param strategy one of {@link #strategies()}
     */
    default void prepareWorkers(String strategy) {
    }

    /** Drops the namespace and closes everything. */
    @Override
    void close();
}
