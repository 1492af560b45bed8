package io.txlock.servers;

/** A server process of a test's own, which the test crashes, pauses and restarts through its {@link #process()}. */
public interface PrivateServer extends AutoCloseable {

    /** @return its process, to crash, pause or restart */
    ServerProcess process();

    /** Stops the server (by its own pid) and frees what it holds. */
    @Override
    void close();
}
