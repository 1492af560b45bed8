package io.txlock.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.lease.LeaseTimeToLiveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.TxnOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.txlock.LockBackendException;
import io.txlock.LockInfo;
import io.txlock.LockNotHeldException;
import io.txlock.spi.Attempt;
import io.txlock.spi.Cancellation;
import io.txlock.spi.Grant;
import io.txlock.spi.LockProvider;
import io.txlock.spi.LockRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locks in etcd (v3 API, 3.4 or later) through jetcd: a fair queue of keys per lock name, like etcd's own
 * {@code concurrency.Mutex}, with the holder key's create revision as fencing token.
 *
 * <pre>{@code
 * Client etcd = Client.builder().endpoints("http://etcd1:2379", "http://etcd2:2379", "http://etcd3:2379").build();
 * LockManager locks = LockManager.builder(EtcdLockProvider.builder(etcd).keyPrefix("/txlock/").build()).build();
 * }</pre>
 *
 * <p>Each attempt takes an etcd lease of its own with a TTL of at least the lock's lease (whole seconds; etcd may
 * raise it to its minimum TTL): one that an earlier grant of this provider left idle when its key was deleted, kept
 * alive again (no Raft write), or else a new one. It then puts its key {@code <prefix><name>/<lease id>}, bound to that lease, in one
 * transaction that creates the key only if it does not exist yet (a retried transaction after a lost reply finds
 * its own key and reuses it) and reads the first key of the name by create revision. The contender whose key has
 * the lowest create revision holds the lock. Any other watches only the key just before its own (the highest
 * create revision below it) for deletion, keeps its lease alive while it waits, and checks again when that key
 * goes: no polling, one waiter woken per release. A waiter that gives up revokes its lease, which deletes its key.
 *
 * <p>The core renews a held lock every third of its lease ({@code keepAliveOnce}, then a check that the key is
 * still the grant's) and counts the lease on this JVM's clock from before each confirmed renewal, so a holder
 * that paused past its lease knows it. Release deletes the key only if its create revision is still the grant's
 * and keeps the lease, which holds no key any more, for a later attempt (up to 32 per TTL; the rest are revoked, and
 * {@link #close()} revokes them all). A dead holder's key goes when its lease expires, after its TTL.
 *
 * <p>Thread safe. The jetcd client stays the caller's unless the builder is told to close it.
 */
public final class EtcdLockProvider implements LockProvider {

    private static final Logger log = LoggerFactory.getLogger(EtcdLockProvider.class);
    private static final long FOREVER_NANOS = Long.MAX_VALUE / 4;
    /** etcd's largest lease TTL, in seconds. */
    private static final long MAX_TTL_SECONDS = 9_000_000_000L;

    private static final GetOption FIRST_BY_CREATE = GetOption.builder().isPrefix(true)
            .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND).withLimit(1).build();
    private static final TxnOption IDEMPOTENT = TxnOption.builder().withAutoRetry().build();
    /** How many idle leases of one TTL a provider keeps for reuse. */
    private static final int IDLE_LEASES_PER_TTL = 32;
    /** The clients some provider already warmed up. */
    private static final Set<Client> WARMED_UP = Collections.newSetFromMap(new WeakHashMap<>());

    private final Client client;
    private final KV kv;
    private final Lease leases;
    private final Watch watches;
    private final EtcdKeys keys;
    private final Duration requestTimeout;
    private final boolean closeClient;
    private final String description;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Guarded by itself: attempts under way, which {@link #close()} lets give up (revoking their leases) first. */
    private final Object attempts = new Object();
    private int inFlight;
    /** Guarded by itself: by TTL in seconds, leases whose grant ended with its key deleted, most recent first. */
    private final Map<Long, Deque<Long>> idleLeases = new HashMap<>();

    private EtcdLockProvider(Builder builder) {
        this.client = builder.client;
        this.kv = client.getKVClient();
        this.leases = client.getLeaseClient();
        this.watches = client.getWatchClient();
        this.keys = new EtcdKeys(builder.keyPrefix);
        this.requestTimeout = builder.requestTimeout;
        this.closeClient = builder.closeClient;
        this.description = "etcd keys '" + builder.keyPrefix + "…'";
        boolean first;
        synchronized (WARMED_UP) {
            first = WARMED_UP.add(client);
        }
        if (first) {
            CompletableFuture.runAsync(this::warmUp);
        }
    }

    /**
     * Connects in the background and runs each kind of lease call once, once per client: in a fresh JVM the first
     * lease grant and the first keep-alive each take hundreds of milliseconds, which would otherwise be spent from
     * the first lock's lease, before its first renewal.
     */
    private void warmUp() {
        try {
            leases.grant(1, requestTimeout.toMillis(), TimeUnit.MILLISECONDS)
                    .thenCompose(lease -> leases.keepAliveOnce(lease.getID()).thenCompose(alive -> leases.revoke(lease.getID())))
                    .whenComplete((ok, error) -> {
                        if (error != null) {
                            log.debug("{}: warming up the connection failed: {}", description, error.toString());
                        }
                    });
        } catch (RuntimeException e) {
            log.debug("{}: warming up the connection failed: {}", description, e.toString());
        }
    }

    /**
     * @param client a jetcd client; its endpoints, TLS and authentication are its own settings
     * @return a builder for a provider on that client
     * @throws IllegalArgumentException if the client is null
     */
    public static Builder builder(Client client) {
        return new Builder(client);
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public boolean blocksWhileWaiting() {
        return true;
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        synchronized (attempts) {
            ensureOpen();
            inFlight++;
        }
        try {
            return enqueueAndWait(request);
        } catch (LockBackendException e) {
            if (Thread.currentThread().isInterrupted()) {
                return Attempt.held();
            }
            throw e;
        } finally {
            synchronized (attempts) {
                inFlight--;
                attempts.notifyAll();
            }
        }
    }

    private Attempt enqueueAndWait(LockRequest request) {
        String name = request.name();
        long deadline = System.nanoTime() + nanos(request.maxBlock());
        long ttl = ttlSeconds(request.lease());
        long[] lease = leaseFor(ttl, name);
        long leaseId = lease[0];
        long grantedTtl = lease[1];
        boolean granted = false;
        try {
            ByteSequence key = keys.key(name, leaseId);
            ByteSequence value = EtcdKeys.ownerValue(request.owner(), Instant.now());
            long keepAliveEvery = TimeUnit.SECONDS.toNanos(Math.max(1, grantedTtl)) / 3;
            long keptAlive = System.nanoTime();
            Place place = enqueue(name, key, value, leaseId);
            while (!place.first()) {
                if (System.nanoTime() - deadline >= 0) {
                    return Attempt.held();
                }
                Turn turn = turn(name, key, place.revision());
                if (turn.ownKeyGone()) {
                    log.debug("the key of a waiter for '{}' expired while it waited; the core tries again", name);
                    return Attempt.held();
                }
                if (turn.predecessor() == null) {
                    break;
                }
                keptAlive = awaitDeletion(turn, deadline, leaseId, keepAliveEvery, keptAlive, request.cancellation());
                if (request.cancellation().isCancelled()) {
                    return Attempt.held();
                }
            }
            granted = true;
            return Attempt.granted(new EtcdGrant(name, key, value, place.revision(), leaseId, grantedTtl));
        } finally {
            if (!granted) {
                revokeNow(leaseId);
            }
        }
    }

    /**
     * A lease for one attempt: an idle lease of this TTL, kept alive again (a keep-alive is no Raft write), or else
     * a new one.
     *
     * @return the lease id and the TTL etcd granted it
     */
    private long[] leaseFor(long ttl, String name) {
        Long idle = takeIdleLease(ttl);
        while (idle != null) {
            try {
                long alive = await(leases.keepAliveOnce(idle), "keep an idle lease alive").getTTL();
                if (alive > 0) {
                    return new long[] {idle, alive};
                }
            } catch (LockBackendException e) {
                if (Thread.currentThread().isInterrupted()) {
                    throw e;
                }
                log.debug("idle lease {} not reused: {}", Long.toHexString(idle), e.getMessage());
            }
            idle = takeIdleLease(ttl);
        }
        LeaseGrantResponse granted = await(leases.grant(ttl, requestTimeout.toMillis(), TimeUnit.MILLISECONDS),
                "grant a lease of " + ttl + " s for '" + name + "'");
        return new long[] {granted.getID(), granted.getTTL()};
    }

    private Long takeIdleLease(long ttl) {
        synchronized (idleLeases) {
            Deque<Long> idle = idleLeases.get(ttl);
            return idle == null ? null : idle.pollFirst();
        }
    }

    /**
     * Keeps the lease of a grant whose key was deleted for the next attempt with its TTL, most recent first, or revokes
     * it if enough are kept already. It holds no key any more; one that expires meanwhile is simply not reused.
     */
    private void keepIdleLease(long leaseId, long ttl) {
        boolean kept;
        synchronized (idleLeases) {
            Deque<Long> idle = idleLeases.computeIfAbsent(ttl, t -> new ArrayDeque<>());
            kept = !closed.get() && idle.size() < IDLE_LEASES_PER_TTL;
            if (kept) {
                idle.offerFirst(leaseId);
            }
        }
        if (!kept) {
            revokeInBackground(leaseId);
        }
    }

    /** Where an attempt's key stands: its create revision, and whether it is the first of its name. */
    private record Place(long revision, boolean first) {
    }

    /**
     * Creates the contender's key unless it exists (a retry after a lost reply), and reads the name's first key,
     * in one transaction.
     */
    private Place enqueue(String name, ByteSequence key, ByteSequence value, long leaseId) {
        ByteSequence range = keys.range(name);
        TxnResponse response = await(kv.txn(IDEMPOTENT)
                .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(Op.put(key, value, PutOption.builder().withLeaseId(leaseId).build()), Op.get(range, FIRST_BY_CREATE))
                .Else(Op.get(key, GetOption.DEFAULT), Op.get(range, FIRST_BY_CREATE))
                .commit(), "enqueue for '" + name + "'");
        List<GetResponse> gets = response.getGetResponses();
        long revision;
        if (response.isSucceeded()) {
            revision = response.getHeader().getRevision();
        } else {
            List<KeyValue> own = gets.get(0).getKvs();
            if (own.isEmpty()) {
                throw new LockBackendException(describe() + ": the key of a contender for '" + name + "' vanished", null);
            }
            revision = own.get(0).getCreateRevision();
        }
        List<KeyValue> firstKey = gets.get(gets.size() - 1).getKvs();
        return new Place(revision, !firstKey.isEmpty() && firstKey.get(0).getKey().equals(key));
    }

    /**
     * What a waiter sees: whether its own key still exists, and the key just before it (highest create revision
     * below its own), with the revision the answer was read at.
     */
    private record Turn(boolean ownKeyGone, ByteSequence predecessor, long readAt) {
    }

    private Turn turn(String name, ByteSequence key, long revision) {
        GetOption before = GetOption.builder().isPrefix(true).withMaxCreateRevision(revision - 1)
                .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.DESCEND)
                .withLimit(1).withKeysOnly(true).build();
        TxnResponse response = await(kv.txn(IDEMPOTENT)
                .Then(Op.get(key, GetOption.builder().withKeysOnly(true).build()), Op.get(keys.range(name), before))
                .commit(), "read the queue of '" + name + "'");
        List<GetResponse> gets = response.getGetResponses();
        List<KeyValue> own = gets.get(0).getKvs();
        if (own.isEmpty() || own.get(0).getCreateRevision() != revision) {
            return new Turn(true, null, 0);
        }
        List<KeyValue> predecessor = gets.get(1).getKvs();
        return new Turn(false, predecessor.isEmpty() ? null : predecessor.get(0).getKey(), response.getHeader().getRevision());
    }

    /**
     * Waits until the predecessor's key is deleted (a watch from the revision it was read at, so a deletion in
     * between is seen too), the watch fails, or the deadline passes; keeps the waiter's lease alive meanwhile.
     *
     * @return when the lease was last kept alive
     */
    private long awaitDeletion(Turn turn, long deadline, long leaseId, long keepAliveEvery, long keptAlive,
            Cancellation cancellation) {
        CountDownLatch changed = new CountDownLatch(1);
        Cancellation.Registration cancel = cancellation.onCancel(changed::countDown);
        WatchOption option = WatchOption.builder().withRevision(turn.readAt() + 1).withNoPut(true).build();
        Watch.Watcher watcher = watches.watch(turn.predecessor(), option, Watch.listener(
                response -> {
                    for (WatchEvent event : response.getEvents()) {
                        if (event.getEventType() == WatchEvent.EventType.DELETE) {
                            changed.countDown();
                        }
                    }
                },
                error -> changed.countDown(),
                changed::countDown));
        try {
            while (true) {
                long now = System.nanoTime();
                long left = deadline - now;
                if (left <= 0) {
                    return keptAlive;
                }
                long untilKeepAlive = keptAlive + keepAliveEvery - now;
                if (untilKeepAlive <= 0) {
                    keptAlive = keepWaiterAlive(leaseId) ? System.nanoTime() : keptAlive + keepAliveEvery / 3;
                    continue;
                }
                if (changed.await(Math.min(left, untilKeepAlive), TimeUnit.NANOSECONDS) || cancellation.isCancelled()) {
                    return keptAlive;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockBackendException(describe() + ": interrupted while waiting", e);
        } finally {
            cancel.close();
            watcher.close();
        }
    }

    /** @return false if the keep-alive failed; a lease that is gone shows as a missing key at the next check */
    private boolean keepWaiterAlive(long leaseId) {
        try {
            await(leases.keepAliveOnce(leaseId), "keep the lease of a waiter alive");
            return true;
        } catch (LockBackendException e) {
            if (Thread.currentThread().isInterrupted()) {
                throw e;
            }
            log.debug("{}", e.getMessage());
            return false;
        }
    }

    /**
     * Keeps the grant's lease alive ({@code keepAliveOnce}) and checks that its key is still there, with its create
     * revision and bound to that lease. A lease longer than the TTL etcd granted binds the key to a new lease with a
     * longer TTL, in a transaction that checks the key's create revision.
     */
    @Override
    public void renew(Grant grant, Duration lease) {
        EtcdGrant g = notReleased(own(grant));
        long ttl = ttlSeconds(lease);
        if (ttl > g.ttlSeconds()) {
            rebind(g, ttl);
            return;
        }
        long leaseId = g.leaseId();
        try {
            await(leases.keepAliveOnce(leaseId), "keep the lease of " + g + " alive");
        } catch (LockBackendException e) {
            if (leaseNotFound(e.getCause())) {
                throw new LockNotHeldException("etcd lock " + g + " is gone: its lease expired or was revoked");
            }
            throw e;
        }
        List<KeyValue> kvs = await(kv.get(g.key(), GetOption.builder().withKeysOnly(true).build()), "read the key of " + g).getKvs();
        if (kvs.isEmpty() || kvs.get(0).getCreateRevision() != g.fencingToken() || kvs.get(0).getLease() != leaseId) {
            throw new LockNotHeldException("etcd lock " + g + " is gone: its key was deleted or replaced");
        }
    }

    private void rebind(EtcdGrant g, long ttl) {
        LeaseGrantResponse longer = await(leases.grant(ttl, requestTimeout.toMillis(), TimeUnit.MILLISECONDS),
                "grant a lease of " + ttl + " s for " + g);
        // if this fails, the key may be bound to the new lease anyway: that lease is left to expire, and the next
        // renewal finds the key bound to a lease other than the grant's and reports the lock lost
        TxnResponse response = await(kv.txn()
                .If(new Cmp(g.key(), Cmp.Op.EQUAL, CmpTarget.createRevision(g.fencingToken())))
                .Then(Op.put(g.key(), g.value(), PutOption.builder().withLeaseId(longer.getID()).build()))
                .commit(), "bind " + g + " to a lease of " + ttl + " s");
        if (!response.isSucceeded()) {
            revokeInBackground(longer.getID());
            throw new LockNotHeldException("etcd lock " + g + " is gone: its key was deleted or replaced");
        }
        long old = g.leaseId();
        g.rebind(longer.getID(), longer.getTTL());
        revokeInBackground(old);
    }

    /**
     * Deletes the grant's key if its create revision is still the grant's; its lease, which then holds no key, is kept
     * for a later attempt of this provider. If the delete failed, the lease is revoked in the background (which deletes
     * the key if it is still there); if it was refused, the key was gone with its lease. Works even if the calling
     * thread is interrupted; an interrupted caller stays interrupted.
     */
    @Override
    public void release(Grant grant) {
        EtcdGrant g = notReleased(own(grant));
        boolean interrupted = Thread.interrupted();
        boolean deleted = false;
        boolean refused = false;
        try {
            TxnResponse response = await(kv.txn()
                    .If(new Cmp(g.key(), Cmp.Op.EQUAL, CmpTarget.createRevision(g.fencingToken())))
                    .Then(Op.delete(g.key(), DeleteOption.DEFAULT))
                    .commit(), "release " + g);
            if (!response.isSucceeded()) {
                refused = true;
                throw new LockNotHeldException("etcd lock " + g + " was no longer held: its key is gone (lease expired)"
                        + " or replaced");
            }
            deleted = true;
        } finally {
            if (deleted) {
                g.markReleased();
                keepIdleLease(g.leaseId(), g.ttlSeconds());
            } else if (!refused) {
                revokeInBackground(g.leaseId());
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        ensureOpen();
        List<KeyValue> first = await(kv.get(keys.range(name), FIRST_BY_CREATE), "inspect '" + name + "'").getKvs();
        if (first.isEmpty()) {
            return Optional.empty();
        }
        KeyValue holder = first.get(0);
        EtcdKeys.Owner owner = EtcdKeys.owner(holder.getValue());
        Instant until = null;
        if (holder.getLease() != 0) {
            LeaseTimeToLiveResponse ttl = await(leases.timeToLive(holder.getLease(), LeaseOption.DEFAULT),
                    "read the lease of '" + name + "'");
            if (ttl.getTTL() > 0) {
                until = Instant.now().plusSeconds(ttl.getTTL());
            }
        }
        if (until != null && owner.since() != null && !until.isAfter(owner.since())) {
            until = null;
        }
        return Optional.of(new LockInfo(name, owner.host(), owner.id(), holder.getCreateRevision(), owner.since(), until, 1));
    }

    /**
     * @return listing of the contender keys by prefix (each name then read as {@link #inspect} reads it), and forced
     *     release that deletes the holder's key in a transaction guarded by its create revision, the token: the
     *     holder's next renewal finds its key gone
     */
    @Override
    public Optional<io.txlock.spi.LockAdministration> administration() {
        return Optional.of(new io.txlock.spi.LockAdministration() {
            @Override
            public List<LockInfo> list(String prefix, int limit) {
                ensureOpen();
                List<KeyValue> contenders = await(kv.get(keys.namesStartingWith(prefix),
                        GetOption.builder().isPrefix(true).withKeysOnly(true).build()), "list the locks of '" + prefix + "'").getKvs();
                java.util.TreeSet<String> names = new java.util.TreeSet<>();
                for (KeyValue contender : contenders) {
                    String name = keys.nameOf(contender.getKey().toString(java.nio.charset.StandardCharsets.UTF_8));
                    if (name != null && name.startsWith(prefix)) {
                        names.add(name);
                    }
                }
                return io.txlock.spi.LockAdministration.held(names, limit, EtcdLockProvider.this::inspect);
            }

            @Override
            public boolean forceRelease(String name, long fencingToken) {
                ensureOpen();
                List<KeyValue> first = await(kv.get(keys.range(name), FIRST_BY_CREATE), "read the holder of '" + name + "'").getKvs();
                if (first.isEmpty() || first.get(0).getCreateRevision() != fencingToken) {
                    return false;
                }
                ByteSequence key = first.get(0).getKey();
                return await(kv.txn()
                        .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(fencingToken)))
                        .Then(Op.delete(key, DeleteOption.DEFAULT))
                        .commit(), "force-release '" + name + "'").isSucceeded();
            }
        });
    }

    /** How long {@link #close()} waits for attempts under way, which the core cancelled before, to give up. */
    private static final java.time.Duration CLOSE_WAIT = java.time.Duration.ofSeconds(5);

    /**
     * Stops taking new attempts, lets those under way give up and revoke their leases (the core cancels them before
     * it closes the provider), revokes the idle leases, and closes the jetcd client if the builder was told to. Held
     * locks are released by the core before; any left end with their leases.
     */
    @Override
    public void close() {
        synchronized (attempts) {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
            while (inFlight > 0 && deadline - System.nanoTime() > 0) {
                try {
                    attempts.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        List<Long> idle = new ArrayList<>();
        synchronized (idleLeases) {
            idleLeases.values().forEach(idle::addAll);
            idleLeases.clear();
        }
        for (long leaseId : idle) {
            try {
                leases.revoke(leaseId);
            } catch (RuntimeException e) {
                log.debug("could not revoke idle lease {} (it expires after its TTL): {}", Long.toHexString(leaseId), e.toString());
            }
        }
        if (closeClient) {
            client.close();
        }
    }

    @Override
    public String toString() {
        return "EtcdLockProvider[" + describe() + "]";
    }

    // ---- plumbing

    private void revokeNow(long leaseId) {
        boolean interrupted = Thread.interrupted();
        try {
            await(leases.revoke(leaseId), "revoke lease " + Long.toHexString(leaseId));
        } catch (LockBackendException e) {
            if (!leaseNotFound(e.getCause())) {
                log.warn("{}; it expires after its TTL", e.getMessage());
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void revokeInBackground(long leaseId) {
        if (closed.get() && closeClient) {
            return;
        }
        try {
            leases.revoke(leaseId).whenComplete((ok, error) -> {
                if (error != null && !leaseNotFound(unwrap(error))) {
                    log.debug("could not revoke lease {} (it expires after its TTL): {}", Long.toHexString(leaseId), error.toString());
                }
            });
        } catch (RuntimeException e) {
            log.debug("could not revoke lease {} (it expires after its TTL): {}", Long.toHexString(leaseId), e.toString());
        }
    }

    private static boolean leaseNotFound(Throwable e) {
        return e instanceof EtcdException etcd && (etcd.getErrorCode() == ErrorCode.NOT_FOUND
                || String.valueOf(etcd.getMessage()).contains("requested lease not found"));
    }

    /**
     * Waits for a jetcd call, at most the request timeout.
     *
     * @throws LockBackendException if it failed, timed out, or the caller was interrupted (who stays interrupted)
     */
    private <T> T await(CompletableFuture<T> call, String what) {
        try {
            return call.get(requestTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            call.cancel(true);
            Thread.currentThread().interrupt();
            throw new LockBackendException(describe() + ": interrupted while trying to " + what, e);
        } catch (TimeoutException e) {
            call.cancel(true);
            throw new LockBackendException(describe() + ": could not " + what + ": no answer within " + requestTimeout, e);
        } catch (ExecutionException | CompletionException e) {
            Throwable cause = unwrap(e);
            throw new LockBackendException(describe() + ": could not " + what + ": " + cause, cause);
        } catch (RuntimeException e) {
            throw new LockBackendException(describe() + ": could not " + what + ": " + e, e);
        }
    }

    private static Throwable unwrap(Throwable e) {
        Throwable cause = e;
        while ((cause instanceof ExecutionException || cause instanceof CompletionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** A grant released before must not touch its lease again: another grant of this provider may hold it now. */
    private static EtcdGrant notReleased(EtcdGrant g) {
        if (g.released()) {
            throw new LockNotHeldException("etcd lock " + g + " was released already");
        }
        return g;
    }

    private EtcdGrant own(Grant grant) {
        if (grant instanceof EtcdGrant g) {
            return g;
        }
        throw new IllegalArgumentException("not a grant of " + describe() + ": " + grant);
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException(describe() + ": the lock provider is closed");
        }
    }

    /** @return the lease in whole seconds, rounded up: etcd's TTLs are seconds, and never shorter than the lease */
    static long ttlSeconds(Duration lease) {
        if (lease.compareTo(Duration.ofSeconds(MAX_TTL_SECONDS)) >= 0) {
            return MAX_TTL_SECONDS;
        }
        long seconds = lease.getSeconds() + (lease.getNano() > 0 ? 1 : 0);
        return Math.max(1, seconds);
    }

    private static long nanos(Duration d) {
        return d.compareTo(Duration.ofNanos(FOREVER_NANOS)) >= 0 ? FOREVER_NANOS : Math.max(0, d.toNanos());
    }

    /** Configures an {@link EtcdLockProvider}. */
    public static final class Builder {
        private final Client client;
        private String keyPrefix = "/txlock/";
        private Duration requestTimeout = Duration.ofSeconds(5);
        private boolean closeClient;

        private Builder(Client client) {
            if (client == null) {
                throw new IllegalArgumentException("client must not be null: pass a jetcd Client, e.g. "
                        + "Client.builder().endpoints(\"http://etcd:2379\").build()");
            }
            this.client = client;
        }

        /**
         * @param keyPrefix where the locks live: every lock name gets the key range {@code <keyPrefix><encoded name>/};
         *     must end with {@code /} (the default is {@code /txlock/}). The client's namespace, if any, comes first
         * @return this builder
         * @throws IllegalArgumentException if the prefix is null, blank or does not end with {@code /}
         */
        public Builder keyPrefix(String keyPrefix) {
            if (keyPrefix == null || keyPrefix.isBlank() || !keyPrefix.endsWith("/")) {
                throw new IllegalArgumentException("keyPrefix must be a non-blank key prefix ending with '/', such as "
                        + "/txlock/, was " + (keyPrefix == null ? "null" : "'" + keyPrefix + "'"));
            }
            this.keyPrefix = keyPrefix;
            return this;
        }

        /**
         * @param requestTimeout how long one etcd request may take before the lock call fails with
         *     {@link LockBackendException} (default 5 s): how soon an unreachable cluster is reported. Waiting for
         *     a held lock is bounded by the caller's wait instead
         * @return this builder
         * @throws IllegalArgumentException if it is null or shorter than 1 ms
         */
        public Builder requestTimeout(Duration requestTimeout) {
            if (requestTimeout == null || requestTimeout.compareTo(Duration.ofMillis(1)) < 0) {
                throw new IllegalArgumentException("requestTimeout must be at least 1 ms, was " + requestTimeout);
            }
            this.requestTimeout = requestTimeout;
            return this;
        }

        /**
         * @param closeClient {@code true} to close the jetcd client when the provider closes (when the provider is
         *     its only user); {@code false} (the default) leaves it to its owner
         * @return this builder
         */
        public Builder closeClient(boolean closeClient) {
            this.closeClient = closeClient;
            return this;
        }

        /** @return a new provider; it starts connecting to etcd in the background */
        public EtcdLockProvider build() {
            return new EtcdLockProvider(this);
        }
    }
}
