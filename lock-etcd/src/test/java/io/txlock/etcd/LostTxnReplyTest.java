package io.txlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.txlock.LockBackendException;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.spi.TransactionSupport;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reply to the transaction that puts a contender's key is lost after etcd applied it (the client sees
 * UNAVAILABLE): the retried transaction finds the key of its own lease and reuses it, and an attempt that gives up
 * leaves no key behind that would block the queue.
 */
class LostTxnReplyTest {

    private static final String PREFIX = "/lost-" + UUID.randomUUID().toString().substring(0, 8) + "/";

    private static EtcdCluster etcd;
    private static Client admin;

    @BeforeAll
    static void start() {
        etcd = EtcdCluster.start(1, 50);
        admin = etcd.client();
    }

    @AfterAll
    static void stop() {
        admin.close();
        etcd.close();
    }

    @Test
    void aRetryAfterALostReplyReusesItsOwnKey() throws Exception {
        LosesTxnReplies faults = new LosesTxnReplies();
        try (LockManager locks = manager(faults); LockManager other = manager(new LosesTxnReplies())) {
            faults.loseNext(1);
            LockHandle handle = locks.acquire("lost-once");
            assertThat(faults.lost()).as("replies lost").isEqualTo(1);
            List<KeyValue> keys = keys("lost-once");
            assertThat(keys).as("keys of 'lost-once' after a retried put: no orphan").hasSize(1);
            assertThat(handle.fencingToken()).as("token: the create revision of the one key").isEqualTo(keys.get(0).getCreateRevision());
            assertThat(other.tryAcquire("lost-once")).isEmpty();
            handle.release();
            assertThat(keys("lost-once")).as("keys after release").isEmpty();
            assertThat(other.tryAcquire("lost-once")).hasValueSatisfying(LockHandle::release);
        }
    }

    @Test
    void anAttemptThatGivesUpLeavesNoKey() throws Exception {
        LosesTxnReplies faults = new LosesTxnReplies();
        try (LockManager locks = manager(faults); LockManager other = manager(new LosesTxnReplies())) {
            faults.loseNext(100);
            assertThatThrownBy(() -> locks.acquire("lost-always")).isInstanceOf(LockBackendException.class);
            faults.loseNext(0);
            assertThat(keys("lost-always")).as("keys of 'lost-always' after the attempt gave up: its lease was revoked").isEmpty();
            assertThat(other.tryAcquire("lost-always")).as("'lost-always' at once").hasValueSatisfying(LockHandle::release);
        }
    }

    private static LockManager manager(LosesTxnReplies faults) {
        Client client = Client.builder().endpoints(etcd.endpoints().split(",")).interceptor(faults)
                .retryDelay(50).retryMaxDelay(100).build();
        return LockManager.builder(EtcdLockProvider.builder(client).keyPrefix(PREFIX).requestTimeout(Duration.ofSeconds(5))
                .closeClient(true).build()).transactions(TransactionSupport.none()).build();
    }

    private static List<KeyValue> keys(String name) throws Exception {
        return admin.getKVClient().get(EtcdKeys.bytes(PREFIX + EtcdKeys.encode(name) + "/"), GetOption.builder().isPrefix(true).build())
                .get(10, TimeUnit.SECONDS).getKvs();
    }

    /** Lets KV/Txn calls reach etcd, then replaces the next answers with UNAVAILABLE. */
    static final class LosesTxnReplies implements ClientInterceptor {
        private final AtomicInteger toLose = new AtomicInteger();
        private final AtomicInteger lost = new AtomicInteger();

        void loseNext(int count) {
            toLose.set(count);
        }

        int lost() {
            return lost.get();
        }

        @Override
        public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
            if (!method.getFullMethodName().endsWith("KV/Txn") || toLose.get() <= 0) {
                return next.newCall(method, options);
            }
            return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
                @Override
                public void start(Listener<A> listener, Metadata headers) {
                    super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
                        private boolean losing;

                        @Override
                        public void onMessage(A message) {
                            losing = toLose.getAndDecrement() > 0;
                            if (!losing) {
                                super.onMessage(message);
                            }
                        }

                        @Override
                        public void onClose(Status status, Metadata trailers) {
                            if (losing && status.isOk()) {
                                lost.incrementAndGet();
                                super.onClose(Status.UNAVAILABLE.withDescription("reply lost by the test"), trailers);
                            } else {
                                super.onClose(status, trailers);
                            }
                        }
                    }, headers);
                }
            };
        }
    }
}
