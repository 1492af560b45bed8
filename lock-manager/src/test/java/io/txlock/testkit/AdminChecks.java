package io.txlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.LockAdmin;
import io.txlock.LockHandle;
import io.txlock.LockInfo;
import io.txlock.LockManager;
import io.txlock.LockNotHeldException;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.spi.LockProvider;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Part of the contract kit ({@link LockContractTest} implements it): an operator lists another node's lock and
 * force-releases it with the token it saw ({@link LockAdmin}); the holder loses it, a stale token changes nothing. A
 * provider without administration refuses it clearly; one whose backend records no holder (a SELECT_FOR_UPDATE row
 * lock) lists the lock without owner or token and refuses to free it, saying why.
 */
public interface AdminChecks {

    /** How long a check waits for something that must happen. */
    Duration ADMIN_PATIENCE = Duration.ofSeconds(30);
    /** The holder's lease: it renews every third of it, and learns of a forced release at its next renewal at the latest. */
    Duration ADMIN_LEASE = Duration.ofSeconds(3);

    /**
     * @param wrap changes the provider under test
     * @return a new manager (a node) over a new provider, changed by {@code wrap}; the kit closes it after the test
     */
    LockManager nodeOver(UnaryOperator<LockProvider> wrap);

    /**
     * @param suffix what the name is about
     * @return a lock name unique to this test run
     */
    String uniqueName(String suffix);

    /** @return whether the backend records who holds a lock and with which token, for another node to see */
    boolean backendRecordsTheHolder();

    @Test
    @Timeout(120)
    default void anOperatorListsAnotherNodesLockAndForceReleasesItWithTheTokenItSaw() throws Exception {
        LockProvider[] admins = new LockProvider[1];
        nodeOver(provider -> admins[0] = provider);
        LockProvider provider = admins[0];
        if (provider.administration().isEmpty()) {
            assertThatThrownBy(() -> LockAdmin.over(provider)).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining(provider.describe()).hasMessageContaining("offers no lock administration");
            return;
        }
        LockAdmin admin = LockAdmin.over(provider).operator("kit-operator");
        String name = uniqueName("stuck");
        String prefix = name.substring(0, name.length() - "uck".length());
        LockManager holderNode = nodeOver(UnaryOperator.identity());
        LockHandle held = holderNode.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE).withLease(ADMIN_LEASE)
                .withWait(ADMIN_PATIENCE));
        CountDownLatch lost = new CountDownLatch(1);
        held.onLost(lost::countDown);
        nodeOver(UnaryOperator.identity()).acquire(uniqueName("other"), LockOptions.defaults().withScope(LockScope.LEASE)
                .withWait(ADMIN_PATIENCE));

        List<LockInfo> listed = admin.list(prefix);
        assertThat(listed).as("locks of prefix '%s'", prefix).extracting(LockInfo::name).containsExactly(name);
        LockInfo seen = listed.get(0);
        if (!backendRecordsTheHolder()) {
            assertThat(seen.fencingToken()).as("token of a lock whose backend records no holder").isZero();
            assertThat(seen.ownerId()).isNull();
            assertThatThrownBy(() -> admin.forceRelease(name, held.fencingToken()))
                    .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("SELECT_FOR_UPDATE")
                    .hasMessageContaining("end its database session");
            assertThat(held.isValid()).as("the lock after a refused forced release").isTrue();
            return;
        }
        assertThat(seen.fencingToken()).as("listed token").isEqualTo(held.fencingToken());
        assertThat(seen.ownerId()).as("listed owner").startsWith(holderNode.instanceId() + "/");

        assertThatThrownBy(() -> admin.forceRelease(name, held.fencingToken() - 1))
                .isInstanceOf(LockNotHeldException.class).hasMessageContaining("is not held under token " + (held.fencingToken() - 1))
                .hasMessageContaining("held under token " + held.fencingToken());
        assertThat(held.isValid()).as("the lock after a forced release with a stale token").isTrue();

        LockInfo freed = admin.forceRelease(name, held.fencingToken());
        assertThat(freed.ownerId()).isEqualTo(seen.ownerId());
        assertThat(lost.await(ADMIN_PATIENCE.toMillis(), TimeUnit.MILLISECONDS))
                .as("the holder learned it lost the lock (onLost ran)").isTrue();
        assertThat(held.isValid()).isFalse();
        assertThat(admin.list(prefix)).as("locks of prefix '%s' after the forced release", prefix).isEmpty();
        try (LockHandle next = nodeOver(UnaryOperator.identity()).acquire(name, LockOptions.defaults()
                .withScope(LockScope.LEASE).withWait(ADMIN_PATIENCE))) {
            assertThat(next.fencingToken()).as("the next holder's token").isGreaterThan(held.fencingToken());
            assertThatThrownBy(() -> admin.forceRelease(name, held.fencingToken()))
                    .as("a forced release with the freed grant's token, now that another holds it")
                    .isInstanceOf(LockNotHeldException.class);
            assertThat(next.isValid()).isTrue();
        }
        assertThatThrownBy(held::release).isInstanceOf(LockNotHeldException.class);
    }
}
