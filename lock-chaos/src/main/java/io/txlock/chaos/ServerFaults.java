package io.txlock.chaos;

import io.txlock.servers.PrivateServer;
import java.time.Duration;
import java.util.List;

/** A backend that is one private server: its faults are a crash and restart, or a pause of 1.5 leases. */
interface ServerFaults extends ChaosBackend {

    /** @return the running server */
    PrivateServer server();

    @Override
    default List<FaultKind> backendFaults() {
        return List.of(FaultKind.RESTART_SERVER, FaultKind.PAUSE_SERVER);
    }

    /** @return the server hit, for the history */
    @Override
    default String inject(FaultKind fault, Duration lease) throws InterruptedException {
        switch (fault) {
            case RESTART_SERVER -> server().process().restart();
            case PAUSE_SERVER -> server().process().pause(lease.multipliedBy(3).dividedBy(2));
            default -> throw new IllegalArgumentException(server() + " has no fault " + fault);
        }
        return server().toString();
    }
}
