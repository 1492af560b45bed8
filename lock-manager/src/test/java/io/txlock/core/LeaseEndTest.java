package io.txlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockNotHeldException;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.spi.Attempt;
import io.txlock.spi.Grant;
import io.txlock.spi.LockProvider;
import io.txlock.spi.LockRequest;
import io.txlock.spi.TransactionSupport;
import io.txlock.testkit.ForwardingProvider;
import io.txlock.testkit.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A backend that stops answering without refusing (packets dropped, a paused server): the renewal call hangs, up to
 * the client's socket timeout. The holder's lease, counted on its own clock from before the acquire, still ends on
 * time: {@link LockHandle#isValid()} turns false, {@code onLost} runs and the lock is released for the next owner,
 * all while the renewal still hangs; and its late success does not revive the handle. A renewal answered within
 * the lease keeps the lock as before, and a grant that waited for more than two thirds of its lease is renewed once before
 * it is handed out. On real providers (H2 OPTIMISTIC_VERSION, the kit's lock files) seen through a
 * {@link ForwardingProvider}: their renewals reach the backend, and the test holds back the answers until it lets
 * them go.
 */
@Timeout(120)
class LeaseEndTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    /** How late a poll may notice what happened on a loaded machine. */
    private static final Duration SLACK = Duration.ofSeconds(1);

    @TempDir
    Path dir;

    private HikariDataSource h2;
    private final List<LockManager> managers = new ArrayList<>();
    private final List<HangingRenewals> hanging = new ArrayList<>();

    @BeforeEach
    void startH2() {
        h2 = TestDatabase.inMemoryH2("hanging", 8);
    }

    @AfterEach
    void close() {
        hanging.forEach(h -> h.answer.countDown());
        Collections.reverse(managers);
        managers.forEach(LockManager::close);
        h2.close();
    }

    private Supplier<LockProvider> providers(CoreBackend backend) {
        return backend.providers(h2, dir);
    }

    private LockManager manager(LockProvider provider) {
        LockManager manager = LockManager.builder(provider).transactions(TransactionSupport.none()).build();
        managers.add(manager);
        return manager;
    }

    private static void awaitFirstRenewalSent(HangingRenewals renewals, String name) {
        Awaitility.await("first renewal of '" + name + "' sent").atMost(PATIENCE).pollInterval(Duration.ofMillis(5))
                .until(() -> renewals.sent.get() >= 1);
    }

    private HangingRenewals hangingRenewals(LockProvider provider) {
        HangingRenewals h = new HangingRenewals(provider);
        hanging.add(h);
        return h;
    }

    @ParameterizedTest
    @EnumSource(CoreBackend.class)
    void aRenewalThatHangsPastTheLeaseLosesTheLockWhenTheLeaseEnds(CoreBackend backend) throws Exception {
        String name = "hanging-renewal";
        Duration lease = Duration.ofMillis(1500);
        Supplier<LockProvider> providers = providers(backend);
        HangingRenewals renewals = hangingRenewals(providers.get());
        LockManager holderNode = manager(renewals);
        LockManager otherNode = manager(providers.get());

        LockHandle held = holderNode.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE).withLease(lease));
        Instant expiresAt = held.expiresAt();
        CountDownLatch lost = new CountDownLatch(1);
        held.onLost(lost::countDown);
        awaitFirstRenewalSent(renewals, name);

        Awaitility.await("handle invalid by the end of its lease (" + expiresAt + ") while its renewal hangs")
                .atMost(Duration.between(Instant.now(), expiresAt).plus(SLACK)).pollInterval(Duration.ofMillis(10))
                .until(() -> !held.isValid());
        assertThat(lost.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).as("onLost of '%s' while its renewal hangs", name)
                .isTrue();
        assertThat(renewals.answered.get()).as("renewals answered when the lease ended").isZero();
        assertThat(held.expiresAt()).as("expiresAt with no renewal confirmed").isEqualTo(expiresAt);

        LockHandle next = otherNode.tryAcquire(name, LockOptions.defaults().withScope(LockScope.LEASE).withWait(PATIENCE))
                .orElseThrow(() -> new AssertionError("'" + name + "' not free for another node after its holder lost it"));
        assertThat(next.fencingToken()).as("token after the lost %d", held.fencingToken()).isGreaterThan(held.fencingToken());

        renewals.answer.countDown();
        Holding holding = ((Handle) held).holding;
        Awaitility.await("the hanging renewal answered, successfully, and handled").atMost(PATIENCE)
                .until(() -> renewals.answered.get() == 1 && holding.lease.renewalsUnderWay() == 0);
        assertThat(renewals.failed.get()).as("renewals that failed in the backend").isZero();
        assertThat(held.isValid()).as("the lost handle after its renewal succeeded too late").isFalse();
        assertThat(held.expiresAt()).as("expiresAt after a renewal confirmed too late").isEqualTo(expiresAt);
        assertThat(holding.status()).isEqualTo(Holding.Status.LOST);
        assertThatThrownBy(held::release).as("release of the lost handle").isInstanceOf(LockNotHeldException.class)
                .hasMessageContaining("lost");
        assertThatThrownBy(() -> held.extend(lease)).as("extend of the lost handle").isInstanceOf(LockNotHeldException.class);
        assertThat(renewals.sent.get()).as("renewals sent: none after the loss").isEqualTo(1);

        assertThat(next.isValid()).as("the next holder's handle").isTrue();
        assertThat(otherNode.inspect(name)).as("'%s' after the lost holder's late renewal and release", name)
                .hasValueSatisfying(info -> assertThat(info.fencingToken()).isEqualTo(next.fencingToken()));
        next.release();
    }

    @ParameterizedTest
    @EnumSource(CoreBackend.class)
    void aSlowRenewalAnsweredWithinTheLeaseKeepsTheLock(CoreBackend backend) {
        String name = "slow-renewal";
        Duration lease = Duration.ofSeconds(4);
        Supplier<LockProvider> providers = providers(backend);
        HangingRenewals renewals = hangingRenewals(providers.get());
        LockManager holderNode = manager(renewals);
        LockManager otherNode = manager(providers.get());

        LockHandle held = holderNode.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE).withLease(lease));
        Instant firstExpiry = held.expiresAt();
        awaitFirstRenewalSent(renewals, name);
        renewals.answer.countDown();
        Holding holding = ((Handle) held).holding;
        Awaitility.await("the renewal answered and handled").atMost(PATIENCE)
                .until(() -> renewals.answered.get() >= 1 && holding.lease.renewalsUnderWay() == 0);

        assertThat(held.isValid()).as("handle after a renewal answered %s before its lease ended",
                Duration.between(Instant.now(), firstExpiry)).isTrue();
        assertThat(held.expiresAt()).as("expiresAt after the renewal").isAfter(firstExpiry);
        assertThat(otherNode.tryAcquire(name)).as("'%s' for another node", name).isEmpty();
        held.release();
        assertThat(otherNode.tryAcquire(name, PATIENCE)).as("'%s' after release", name).hasValueSatisfying(LockHandle::release);
    }

    /**
     * An attempt that waited in the backend longer than the lease (a row lock's wait) is granted with the lease counted
     * from its start already over; the grant itself came at the end of the wait, so the core renews it once, on the
     * acquiring thread, before it hands out a valid handle.
     */
    @ParameterizedTest
    @EnumSource(CoreBackend.class)
    void aGrantThatCameAfterAWaitLongerThanTheLeaseIsRenewedBeforeItIsHandedOut(CoreBackend backend) {
        String name = "late-grant";
        Duration lease = Duration.ofSeconds(1);
        Supplier<LockProvider> providers = providers(backend);
        SlowGrants slow = new SlowGrants(providers.get(), lease.plusMillis(50));
        LockManager holderNode = manager(slow);
        LockManager otherNode = manager(providers.get());

        LockHandle held = holderNode.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE).withLease(lease));
        assertThat(slow.renewers).as("threads that renewed '%s' by the time acquire returned", name).isNotEmpty()
                .first().isSameAs(Thread.currentThread());
        assertThat(held.isValid()).as("handle of a grant renewed after a wait longer than its lease").isTrue();
        assertThat(otherNode.tryAcquire(name)).as("'%s' for another node", name).isEmpty();
        held.release();
    }

    /**
     * An attempt that waited for more than two thirds of its lease is granted with less than a third left, counted
     * from its start: too little for a background renewal on a loaded machine. The core renews it on the acquiring
     * thread, and the caller gets the whole lease.
     */
    @ParameterizedTest
    @EnumSource(CoreBackend.class)
    void aGrantWithLessThanAThirdOfItsLeaseLeftIsRenewedBeforeItIsHandedOut(CoreBackend backend) {
        String name = "nearly-spent-grant";
        Duration lease = Duration.ofMillis(1500);
        Supplier<LockProvider> providers = providers(backend);
        SlowGrants slow = new SlowGrants(providers.get(), Duration.ofMillis(1100));
        LockManager holderNode = manager(slow);

        LockHandle held = holderNode.acquire(name, LockOptions.defaults().withScope(LockScope.LEASE).withLease(lease));
        Instant handedOut = Instant.now();
        assertThat(slow.renewers).as("threads that renewed '%s' by the time acquire returned", name).isNotEmpty()
                .first().isSameAs(Thread.currentThread());
        assertThat(held.expiresAt()).as("expiry of a grant renewed after a wait of two thirds of its lease")
                .isAfter(handedOut.plus(lease.dividedBy(2)));
        assertThat(held.isValid()).isTrue();
        held.release();
    }

    /**
     * Without renewal the lease is a hard limit from the grant: a grant that came after a wait longer than its lease
     * is renewed once, on the acquiring thread, so that its caller gets a valid lock, and never again: it runs out a
     * lease later and the next node gets the name.
     */
    @ParameterizedTest
    @EnumSource(CoreBackend.class)
    void aGrantWithoutAutoRenewAfterAWaitLongerThanItsLeaseIsRenewedOnceAndThenRunsOut(CoreBackend backend) {
        String name = "late-grant-no-renewal";
        Duration lease = Duration.ofSeconds(1);
        Supplier<LockProvider> providers = providers(backend);
        SlowGrants slow = new SlowGrants(providers.get(), lease.plusMillis(50));
        LockManager holderNode = manager(slow);
        LockManager otherNode = manager(providers.get());

        LockHandle held = holderNode.acquire(name,
                LockOptions.defaults().withScope(LockScope.LEASE).withLease(lease).withAutoRenew(false));
        assertThat(held.isValid()).as("handle of a grant without renewal after a wait longer than its lease").isTrue();
        assertThat(slow.renewers).as("threads that renewed '%s' by the time acquire returned", name)
                .containsExactly(Thread.currentThread());
        CountDownLatch lost = new CountDownLatch(1);
        held.onLost(lost::countDown);

        Awaitility.await("'" + name + "' lost at the end of its lease").atMost(lease.plus(PATIENCE)).until(() -> lost.getCount() == 0);
        assertThat(held.isValid()).isFalse();
        assertThat(slow.renewers).as("renewals of a lease without renewal").hasSize(1);
        assertThat(otherNode.tryAcquire(name, PATIENCE)).as("'%s' for another node after it ran out", name)
                .hasValueSatisfying(LockHandle::release);
    }

    /** Attempts wait {@code wait} before they reach the backend; renewals record their thread. */
    static final class SlowGrants extends ForwardingProvider {
        final Duration wait;
        final List<Thread> renewers = new CopyOnWriteArrayList<>();

        SlowGrants(LockProvider delegate, Duration wait) {
            super(delegate);
            this.wait = wait;
        }

        @Override
        public Attempt tryAcquire(LockRequest request) {
            long until = System.nanoTime() + wait.toNanos();
            for (long left = wait.toNanos(); left > 0; left = until - System.nanoTime()) {
                LockSupport.parkNanos(left);
            }
            return delegate.tryAcquire(request);
        }

        @Override
        public void renew(Grant grant, Duration lease) {
            renewers.add(Thread.currentThread());
            delegate.renew(grant, lease);
        }
    }

    /**
     * Renewals reach the backend, which renews the grant; the answer is held back until {@link #answer} opens.
     */
    static final class HangingRenewals extends ForwardingProvider {
        final CountDownLatch answer = new CountDownLatch(1);
        final AtomicInteger sent = new AtomicInteger();
        final AtomicInteger answered = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();

        HangingRenewals(LockProvider delegate) {
            super(delegate);
        }

        @Override
        public void renew(Grant grant, Duration lease) {
            sent.incrementAndGet();
            try {
                delegate.renew(grant, lease);
            } catch (RuntimeException e) {
                failed.incrementAndGet();
                throw e;
            }
            try {
                answer.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while holding back a renewal's answer", e);
            } finally {
                answered.incrementAndGet();
            }
        }
    }
}
