package io.txlock.bench;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * etcd's bare lock, without txlock, each session on a jetcd client of its own. The cycle is the least an etcd lock
 * costs: a put-if-absent transaction ({@code createRevision == 0}) and a delete, retried after 1 ms while another
 * holder's key exists; no lease. The handoff is etcd's own Lock RPC (the server-side {@code concurrency.Mutex}:
 * keys under a lease, a watch on the predecessor), with one kept-alive lease per session.
 */
final class EtcdRawLocks implements RawLocks {

    private static final long TIMEOUT_SECONDS = 60;
    private static final long LOCK_LEASE_SECONDS = 30;

    private final EtcdBackend backend;
    private final String base;

    EtcdRawLocks(EtcdBackend backend, String base) {
        this.backend = backend;
        this.base = base;
    }

    @Override
    public String describeCycle() {
        return "put-if-absent txn (createRevision = 0) + delete";
    }

    @Override
    public String describeHandoff() {
        return "etcd's own Lock RPC (keys under a lease, watch on the predecessor)";
    }

    @Override
    public void prepare(Collection<String> names) {
        // keys need no preparation
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    @Override
    public Session cycleSession() {
        Client client = backend.client();
        KV kv = client.getKVClient();
        ByteSequence me = bytes(UUID.randomUUID().toString());
        return new Session() {
            private ByteSequence held;

            @Override
            public void lock(String name) throws Exception {
                ByteSequence key = bytes(base + "cycle/" + name);
                while (!kv.txn().If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                        .Then(Op.put(key, me, PutOption.DEFAULT)).commit().get(TIMEOUT_SECONDS, TimeUnit.SECONDS).isSucceeded()) {
                    LockSupport.parkNanos(1_000_000);
                }
                held = key;
            }

            @Override
            public void unlock() throws Exception {
                kv.delete(held, DeleteOption.DEFAULT).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }

    @Override
    public Session blockingSession() throws Exception {
        Client client = backend.client();
        long lease = client.getLeaseClient().grant(LOCK_LEASE_SECONDS).get(TIMEOUT_SECONDS, TimeUnit.SECONDS).getID();
        CloseableClient keepAlive = client.getLeaseClient().keepAlive(lease, new StreamObserver<LeaseKeepAliveResponse>() {
            @Override
            public void onNext(LeaseKeepAliveResponse value) {
            }

            @Override
            public void onError(Throwable t) {
            }

            @Override
            public void onCompleted() {
            }
        });
        return new Session() {
            private ByteSequence held;

            @Override
            public void lock(String name) throws Exception {
                held = client.getLockClient().lock(bytes(base + "mutex/" + name), lease).get().getKey();
            }

            @Override
            public void unlock() throws Exception {
                client.getLockClient().unlock(held).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }

            @Override
            public void close() {
                keepAlive.close();
                try {
                    client.getLeaseClient().revoke(lease).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                } catch (Exception e) {
                    // it expires
                } finally {
                    client.close();
                }
            }
        };
    }

    @Override
    public void close() {
        // each session closed its own client
    }
}
