package io.txlock.chaos;

import io.txlock.servers.ServerProcess;
import java.time.Duration;

/** The faults of a backend that is one private server: a crash and restart, or a pause of 1.5 leases. */
final class ServerFaults {

    private ServerFaults() {
    }

    static void inject(ServerProcess server, FaultKind fault, Duration lease) throws InterruptedException {
        switch (fault) {
            case RESTART_SERVER -> server.restart();
            case PAUSE_SERVER -> server.pause(lease.multipliedBy(3).dividedBy(2));
            default -> throw new IllegalArgumentException(server + " has no fault " + fault);
        }
    }
}
