package io.txlock.bench;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.DeleteOption;
import io.txlock.etcd.EtcdLockProvider;
import io.txlock.jdbc.JdbcDialect;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * etcd through jetcd and {@code txlock-lock-etcd}. Without {@code --etcd}, a private {@code etcd} server started by
 * the bench (the binary on the PATH), served to worker JVMs too. The nodes of every site share up to
 * {@value #MAX_CLIENTS} jetcd clients round-robin (each client has its own Vert.x event loops and gRPC channel),
 * opened once for the backend so that no measured run pays for connecting. The bench's keys live under a fresh
 * prefix, deleted when the backend closes; orders go to an embedded H2 database.
 */
final class EtcdBackend implements Backend {

    static final String STRATEGY = "KEY_QUEUE";
    static final int MAX_CLIENTS = 8;

    private final BackendSpec spec;
    private final EtcdServerProcess server;
    private final String endpoints;
    private final String prefix;
    private final EmbeddedOrders orders;
    private final Client admin;
    private final List<Client> clients = new ArrayList<>();
    private final String version;

    private EtcdBackend(BackendSpec spec, int connections) {
        this.spec = spec;
        this.server = spec.url() == null ? EtcdServerProcess.start() : null;
        this.endpoints = server != null ? server.clientUrl() : spec.url();
        this.prefix = spec.prepared() ? spec.namespace() : "/txlock-bench-" + UUID.randomUUID().toString().substring(0, 8) + "/";
        String seen;
        try {
            String body = EtcdServerProcess.get(endpoints.split(",")[0], "/version");
            int at = body.indexOf("\"etcdserver\":\"");
            seen = at < 0 ? "?" : body.substring(at + 14, body.indexOf('"', at + 14));
        } catch (java.io.IOException e) {
            if (server != null) {
                server.close();
            }
            throw new IllegalStateException("no etcd at " + endpoints + " (start it, or leave --etcd out and the bench starts"
                    + " its own): " + e, e);
        }
        this.version = seen;
        this.orders = new EmbeddedOrders(connections);
        this.admin = client();
    }

    /**
     * @param spec the endpoints (or none, for a private server)
     * @param connections connections of the embedded orders database
     * @return the backend
     */
    static EtcdBackend open(BackendSpec spec, int connections) {
        return new EtcdBackend(spec, connections);
    }

    Client client() {
        return Client.builder().endpoints(endpoints.split(",")).build();
    }

    String prefix() {
        return prefix;
    }

    @Override
    public BackendKind kind() {
        return BackendKind.ETCD;
    }

    /**
     * etcd counts the gRPC messages it receives ({@code grpc_server_msg_received_total} of its {@code /metrics},
     * summed): each unary request once, each message of a stream (lease keep-alives, watches) once.
     */
    @Override
    public ServerUsage openServerUsage() {
        String first = endpoints.split(",")[0];
        java.net.URI address = java.net.URI.create(first);
        ServerUsage.Counter counter = new ServerUsage.Counter() {
            @Override
            public long read() throws java.io.IOException {
                return grpcMessagesReceived(EtcdServerProcess.get(first, "/metrics"));
            }

            @Override
            public String note() {
                return "etcd counts gRPC messages received: a unary request once, each message of a stream (lease keep-alives,"
                        + " watches) once";
            }
        };
        return ServerUsage.ofServer("etcd", address.getHost(), address.getPort(), "gRPC messages", counter, null);
    }

    /**
     * @param metrics a Prometheus text page of etcd
     * @return the sum of its {@code grpc_server_msg_received_total} samples
     */
    static long grpcMessagesReceived(String metrics) {
        return metrics.lines().filter(l -> l.startsWith("grpc_server_msg_received_total{"))
                .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    @Override
    public String describe() {
        return "etcd " + version + (server != null ? " started by the bench at " : " at ") + endpoints
                + ", jetcd client; orders in embedded H2";
    }

    @Override
    public List<String> strategies() {
        return List.of(STRATEGY);
    }

    @Override
    public Site openSite(String strategy, int nodes) {
        return Site.of(nodes, i -> EtcdLockProvider.builder(sharedClient(i)).keyPrefix(prefix + "locks/").build(),
                orders.transactions(), JdbcDialect.H2, List.of());
    }

    private synchronized Client sharedClient(int node) {
        if (clients.size() < MAX_CLIENTS && node >= clients.size()) {
            clients.add(client());
        }
        return clients.get(node % clients.size());
    }

    @Override
    public Optional<RawLocks> openRaw(String strategy) {
        return Optional.of(new EtcdRawLocks(this, prefix + "raw/"));
    }

    @Override
    public BackendSpec childSpec() {
        return new BackendSpec(BackendKind.ETCD, endpoints, null, "", prefix, true);
    }

    @Override
    public void close() {
        try {
            if (!spec.prepared()) {
                ByteSequence all = ByteSequence.from(prefix, StandardCharsets.UTF_8);
                admin.getKVClient().delete(all, DeleteOption.builder().isPrefix(true).build()).get(30, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            System.err.println("could not delete the bench's etcd keys under " + prefix + ": " + e);
        } finally {
            synchronized (this) {
                clients.forEach(Client::close);
            }
            admin.close();
            orders.close();
            if (server != null) {
                server.close();
            }
        }
    }
}
