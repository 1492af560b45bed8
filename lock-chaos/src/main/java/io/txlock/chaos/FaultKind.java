package io.txlock.chaos;

/** What the controller does to a holder or to the backend. */
enum FaultKind {
    /** {@code kill -9} of a holder JVM (preferably one holding the lock); a new holder takes its place. */
    KILL_HOLDER("kill -9", false),
    /** {@code SIGSTOP} of a holder JVM (preferably one holding the lock) for several leases, then {@code SIGCONT}. */
    PAUSE_HOLDER("SIGSTOP", false),
    /** A crash and restart of the backend's server (data kept where the server keeps it on disk). */
    RESTART_SERVER("restart", true),
    /** The backend's server stopped ({@code SIGSTOP}) for 1.5 leases, then continued: late replies, expired keys. */
    PAUSE_SERVER("server SIGSTOP", true),
    /** A ZooKeeper follower killed, then restarted. */
    KILL_MEMBER("member", true),
    /** The ZooKeeper leader killed, then restarted once another leader was elected. */
    KILL_LEADER("leader", true);

    private final String label;
    private final boolean backend;

    FaultKind(String label, boolean backend) {
        this.label = label;
        this.backend = backend;
    }

    /** @return the short name in the report */
    String label() {
        return label;
    }

    /** @return whether the fault hits the backend rather than a holder */
    boolean backend() {
        return backend;
    }
}
