package io.txlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.Client;
import io.txlock.LockNotHeldException;
import io.txlock.spi.Attempt;
import io.txlock.spi.GrantListener;
import io.txlock.spi.LockOwner;
import io.txlock.spi.LockRequest;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A released grant's lease is kept for the provider's next attempt (a keep-alive instead of a grant and a revoke):
 * the next grant gets a higher token, and nothing the old grant does can touch it; an idle lease that is gone is
 * not reused.
 */
class LeaseReuseTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final String PREFIX = "/reuse-" + UUID.randomUUID().toString().substring(0, 8) + "/";

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
    void aReusedLeaseGivesAHigherTokenAndTheOldGrantCanNoLongerTouchIt() throws Exception {
        try (EtcdLockProvider provider = provider(); EtcdLockProvider other = provider()) {
            EtcdGrant first = grant(provider, "reused", "first");
            provider.release(first);
            EtcdGrant second = grant(provider, "reused", "second");
            assertThat(second.leaseId()).as("the lease of the released grant, reused").isEqualTo(first.leaseId());
            assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());

            assertThatThrownBy(() -> provider.release(first)).as("a second release of the first grant").isInstanceOf(LockNotHeldException.class);
            assertThatThrownBy(() -> provider.renew(first, LEASE)).as("a renewal of the first grant").isInstanceOf(LockNotHeldException.class);

            assertThat(other.inspect("reused")).hasValueSatisfying(info -> assertThat(info.fencingToken()).isEqualTo(second.fencingToken()));
            assertThat(attempt(other, "reused", "third").isGranted()).as("while the second grant holds it").isFalse();
            provider.renew(second, LEASE);
            provider.release(second);
            assertThat(other.inspect("reused")).isEmpty();
        }
    }

    @Test
    void anIdleLeaseThatIsGoneIsNotReused() throws Exception {
        try (EtcdLockProvider provider = provider()) {
            EtcdGrant first = grant(provider, "expired", "first");
            provider.release(first);
            admin.getLeaseClient().revoke(first.leaseId()).get(10, TimeUnit.SECONDS);

            EtcdGrant second = grant(provider, "expired", "second");
            assertThat(second.leaseId()).as("a new lease").isNotEqualTo(first.leaseId());
            provider.renew(second, LEASE);
            provider.release(second);
        }
    }

    private static EtcdLockProvider provider() {
        return EtcdLockProvider.builder(etcd.client()).keyPrefix(PREFIX).closeClient(true).build();
    }

    private static Attempt attempt(EtcdLockProvider provider, String name, String owner) {
        return provider.tryAcquire(new LockRequest(name, new LockOwner("test-host", owner, "spi"), LEASE, Duration.ZERO, false,
                GrantListener.NONE));
    }

    private static EtcdGrant grant(EtcdLockProvider provider, String name, String owner) {
        Attempt attempt = attempt(provider, name, owner);
        assertThat(attempt.isGranted()).as("%s at free '%s'", owner, name).isTrue();
        return (EtcdGrant) attempt.grant();
    }
}
