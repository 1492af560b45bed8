package io.txlock.core;

import io.txlock.LockInfo;
import io.txlock.LockMetrics;
import io.txlock.LockNotHeldException;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.LockMetrics.Lost;
import io.txlock.spi.Grant;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The book of what one manager holds. A {@link Holding} starts when a {@link Contender} installs its grant, counts
 * reentries and releases, and ends once: released (its last hold, LEASE scope), ended with its transaction
 * (TRANSACTION scope), or lost; whoever ends it frees its name for the next local waiter and gives back the name's
 * reference that the holding kept. Guards: a holding's hold count, and which holding occupies a name, are guarded
 * by the name's mutex ({@link LocalName}), so that reentry and the last release are decided under it; a holding's
 * status by its own monitor; the count of losses is a {@link LongAdder}.
 */
final class Holdings {

    private static final Logger log = LoggerFactory.getLogger(Holdings.class);

    private final LocalNames names;
    private final Backend backend;
    private final Lifecycle lifecycle;
    private final LockMetrics metrics;
    final LeaseKeeper leases;
    private final LongAdder lost = new LongAdder();

    Holdings(LocalNames names, Backend backend, Lifecycle lifecycle, LockMetrics metrics) {
        this.names = names;
        this.backend = backend;
        this.lifecycle = lifecycle;
        this.metrics = metrics;
        this.leases = new LeaseKeeper(backend, lifecycle, metrics, this::lose);
    }

    /** @return locks lost while held, since the manager was built */
    long losses() {
        return lost.sum();
    }

    /** A new holding of a fresh grant, not yet installed; if it cannot be made, the grant is given back. */
    Holding start(LocalName name, Caller caller, LockOptions options, Grant grant, long startNanos, Instant wallStart) {
        try {
            return new Holding(name, caller, grant, options.lease(), options.autoRenew(), startNanos, wallStart, leases);
        } catch (RuntimeException | Error e) {
            backend.giveBack(grant, "could not start holding it");
            throw e;
        }
    }

    /** Under the name's mutex: the holding occupies its name, and keeps the contender's reference to it. */
    void occupy(Contender contender, Holding holding) {
        holding.state.grant(contender, holding);
        metrics.holdingStarted(holding.state.name, holding.scope(), holding.grant.fencingToken());
    }

    /**
     * Binds an installed holding to its transaction and starts keeping its lease; if either fails, the holding ends
     * and its grant is given back.
     *
     * @return the caller's handle
     */
    Handle bind(Holding holding, Duration lease, GrantEvents events) {
        try {
            if (holding.scope() == LockScope.TRANSACTION) {
                holding.caller.transaction().onCompletion(() -> beforeCompletion(holding),
                        committed -> afterCompletion(holding, committed));
            }
            leases.keep(holding, lease);
        } catch (RuntimeException | Error e) {
            if (holding.end(Holding.Status.RELEASED, null)) {
                backend.giveBack(holding.grant, "could not bind to the transaction");
                free(holding);
            }
            throw e;
        }
        events.attach(holding);
        return new Handle(this, holding, false);
    }

    /** Under the name's mutex: one more hold of the same owner. */
    Handle reenter(Holding holding) {
        holding.holds++;
        return new Handle(this, holding, true);
    }

    int holdCount(Holding holding) {
        holding.state.mutex.lock();
        try {
            return holding.holds;
        } finally {
            holding.state.mutex.unlock();
        }
    }

    void release(Handle handle, boolean closing) {
        Holding holding = handle.holding;
        if (!handle.markReleased()) {
            if (closing) {
                return;
            }
            throw new LockNotHeldException("lock " + holding + " was already released through this handle");
        }
        releaseOne(holding, closing);
    }

    /** Releases one hold of the caller's own holding of {@code name}, as {@link java.util.concurrent.locks.Lock#unlock}. */
    void releaseOwn(String name, Caller caller) {
        LocalName state = names.get(name);
        Holding holding = null;
        if (state != null) {
            state.mutex.lock();
            try {
                holding = state.reentrant(caller);
            } finally {
                state.mutex.unlock();
            }
        }
        if (holding == null) {
            throw new IllegalMonitorStateException("lock '" + name + "' is not held by " + caller.owner().id());
        }
        releaseOne(holding, false);
    }

    /** @param closing the handle is being closed: a lock its transaction already released needs nothing more */
    private void releaseOne(Holding holding, boolean closing) {
        leases.loseIfLeaseOver(holding);
        boolean last;
        holding.state.mutex.lock();
        try {
            if (!countDown(holding, closing)) {
                return;
            }
            // ends under the name's mutex, where reentry is decided: no owner re-enters a holding being released
            last = holding.holds == 0 && holding.scope() == LockScope.LEASE && holding.end(Holding.Status.RELEASING, null);
        } finally {
            holding.state.mutex.unlock();
        }
        if (last) {
            releaseGrant(holding);
        }
    }

    /**
     * Under the name's mutex: counts one hold down.
     *
     * @return false if there was nothing to count down: the handle is being closed after its lock ended
     * @throws LockNotHeldException if the lock was lost, or ended while the handle was not being closed
     */
    private static boolean countDown(Holding holding, boolean closing) {
        Holding.Status status = holding.status();
        if (status == Holding.Status.LOST) {
            throw new LockNotHeldException("lock " + holding + " was lost while held (" + holding.lostReason()
                    + "): the protected work may have overlapped with another holder");
        }
        if (status != Holding.Status.HELD && status != Holding.Status.SUSPENDED) {
            if (closing) {
                return false;
            }
            throw new LockNotHeldException("lock " + holding + " is no longer held (" + status
                    + (holding.scope() == LockScope.TRANSACTION ? ": its transaction ended" : "") + ")");
        }
        holding.holds = Math.max(0, holding.holds - 1);
        return true;
    }

    /** Releases the grant of a holding that ended RELEASING. */
    private void releaseGrant(Holding holding) {
        metrics.releaseStarted(holding.state.name, holding.grant.fencingToken());
        try {
            backend.release(holding.grant, holding.state.name);
            holding.finishRelease(Holding.Status.RELEASED, null);
        } catch (LockNotHeldException e) {
            if (holding.finishRelease(Holding.Status.LOST, e.getMessage())) {
                metrics.lost(Lost.RELEASE_REFUSED);
            }
            throw new LockNotHeldException("lock " + holding + " was lost before release (" + e.getMessage()
                    + "): the protected work may have overlapped with another holder");
        } catch (RuntimeException e) {
            holding.finishRelease(Holding.Status.RELEASED, null);
            throw e;
        } finally {
            free(holding);
        }
    }

    /** The holding no longer occupies its name: wake the next local waiter and give back its reference. */
    private void free(Holding holding) {
        LocalName state = holding.state;
        boolean freed;
        AutoCloseable subscription;
        state.mutex.lock();
        try {
            freed = state.free(holding);
            subscription = names.unrefHeld(state);
        } finally {
            state.mutex.unlock();
        }
        if (subscription != null) {
            LocalNames.closeQuietly(subscription);
        }
        if (freed) {
            metrics.holdingEnded(state.name, holding.grant.fencingToken(), holding.scope(), holding.grantedNanos,
                    holding.lostReason());
        }
    }

    /** The grant is gone while its owner still counts on it. */
    void lose(Holding holding, Lost cause, String reason) {
        if (!holding.end(Holding.Status.LOST, reason)) {
            return;
        }
        lost.increment();
        metrics.lost(cause);
        log.warn("lock {} lost: {}", holding, reason);
        free(holding);
        if (holding.caller.transaction() != null) {
            try {
                holding.caller.transaction().setRollbackOnly();
            } catch (RuntimeException e) {
                log.debug("could not mark the transaction rollback-only: {}", e.toString());
            }
        }
        for (Runnable listener : holding.takeLostListeners()) {
            lifecycle.execute(listener);
        }
        if (!holding.grant.endsWithTransaction()) {
            lifecycle.execute(() -> backend.releaseQuietly(holding.grant, "lost: " + reason));
        }
    }

    void onLost(Holding holding, Runnable listener) {
        if (holding.addLostListener(listener)) {
            lifecycle.execute(listener);
        }
    }

    void extend(Holding holding, Duration lease) {
        leases.extend(holding, lease);
    }

    private void beforeCompletion(Holding holding) {
        leases.loseIfLeaseOver(holding);
        if (holding.status() == Holding.Status.LOST) {
            // lose() may have run on a backend thread (a ZooKeeper session event), where a thread-bound
            // transaction API such as TransactionSynchronizationRegistry cannot mark it: mark it here, on its thread
            holding.caller.transaction().setRollbackOnly();
            return;
        }
        if (holding.grant.endsWithTransaction() && holding.isUsable()) {
            backend.run(() -> backend.provider.beforeCompletion(holding.grant), "free", holding.state.name,
                    " before commit");
        }
    }

    private void afterCompletion(Holding holding, boolean committed) {
        boolean ending;
        holding.state.mutex.lock();
        try {
            ending = holding.end(Holding.Status.RELEASING, null);
        } finally {
            holding.state.mutex.unlock();
        }
        if (!ending) {
            return;
        }
        try {
            if (!holding.grant.endsWithTransaction()) {
                backend.releaseQuietly(holding.grant, committed ? "transaction committed" : "transaction rolled back");
            }
        } finally {
            holding.finishRelease(Holding.Status.RELEASED, null);
            free(holding);
        }
    }

    /**
     * What this manager knows of {@code name} beyond what the backend showed ({@code seen}): where it holds the lock,
     * the hold count, and the owner of a row lock held by a still open transaction.
     */
    Optional<LockInfo> inspect(String name, Optional<LockInfo> seen) {
        LocalName state = names.get(name);
        if (state == null) {
            return seen;
        }
        state.mutex.lock();
        try {
            Holding h = state.holding;
            if (h == null || !h.isUsable()) {
                return seen;
            }
            long token = h.grant.fencingToken();
            if (seen.isPresent() && seen.get().fencingToken() != token && seen.get().fencingToken() != 0) {
                return seen;
            }
            return Optional.of(new LockInfo(name, h.caller.owner().host(), h.caller.owner().id(), token,
                    seen.map(LockInfo::since).orElse(h.since), h.expiresAt(), Math.max(1, h.holds)));
        } finally {
            state.mutex.unlock();
        }
    }

    /**
     * The manager closes: every LEASE-scoped holding is released, and every waiter woken to notice. A holding of a
     * transaction ends with it.
     */
    void releaseAll() {
        List<Holding> held = new ArrayList<>();
        for (LocalName state : names.all()) {
            state.mutex.lock();
            try {
                Holding h = state.holding;
                if (h != null && h.scope() == LockScope.LEASE && h.end(Holding.Status.RELEASING, null)) {
                    held.add(h);
                }
                state.wakeAll();
            } finally {
                state.mutex.unlock();
            }
        }
        for (Holding h : held) {
            try {
                releaseGrant(h);
            } catch (RuntimeException e) {
                log.warn("could not release {} while closing: {}", h, e.toString());
            }
        }
    }
}
