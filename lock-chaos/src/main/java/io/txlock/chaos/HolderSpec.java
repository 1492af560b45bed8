package io.txlock.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What a holder JVM does, passed on its command line.
 *
 * @param id the holder's name in histories
 * @param backend the class of the backend, built in the holder with its no-argument constructor
 * @param config what the backend's {@link ChaosBackend#holderConfig} returned
 * @param lock the lock name all holders of the run contend for
 * @param lease the lease of each grant (LEASE scope, renewed)
 * @param waitTime how long one acquire may wait
 * @param maxHold the longest a holder keeps the lock between its checks (random from 0)
 * @param history the holder's history file
 * @param resourceUrl the resource database
 * @param resource the run's resource row
 */
record HolderSpec(String id, String backend, String config, String lock, Duration lease, Duration waitTime,
        Duration maxHold, Path history, String resourceUrl, String resource) {

    List<String> toArgs() {
        return List.of(id, backend, config, lock, Long.toString(lease.toMillis()), Long.toString(waitTime.toMillis()),
                Long.toString(maxHold.toMillis()), history.toString(), resourceUrl, resource);
    }

    static HolderSpec fromArgs(String[] a) {
        if (a.length != 10) {
            throw new IllegalArgumentException("expected 10 arguments (id backend config lock leaseMs waitMs maxHoldMs"
                    + " history resourceUrl resource), got " + a.length);
        }
        return new HolderSpec(a[0], a[1], a[2], a[3], Duration.ofMillis(Long.parseLong(a[4])),
                Duration.ofMillis(Long.parseLong(a[5])), Duration.ofMillis(Long.parseLong(a[6])), Path.of(a[7]), a[8], a[9]);
    }
}
