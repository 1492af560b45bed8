package io.txlock.servers;

/** A private server of one process on one port of 127.0.0.1. */
abstract class PortServer implements PrivateServer {

    private final int port;
    private final ServerProcess server;

    PortServer(int port, ServerProcess server) {
        this.port = port;
        this.server = server;
    }

    /** @return its port on 127.0.0.1 */
    public final int port() {
        return port;
    }

    @Override
    public final ServerProcess process() {
        return server;
    }

    @Override
    public void close() {
        server.close();
    }

    @Override
    public String toString() {
        return server.toString();
    }
}
