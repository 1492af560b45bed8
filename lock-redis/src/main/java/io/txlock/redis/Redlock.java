package io.txlock.redis;

import io.txlock.LockBackendException;
import io.txlock.LockInfo;
import io.txlock.LockNotHeldException;
import io.txlock.spi.Attempt;
import io.txlock.spi.LockRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lock steps over N independent masters (Redlock): a step succeeds when a majority did it within the
 * lease, less the time it took and a clock-drift allowance. With one master it is exactly the single-node
 * algorithm: one script per step, the majority of one is that master, and no token needs writing back.
 * Renewal and release go to every master that may hold the grant, also where the answer to the acquire was lost:
 * they compare the grant's claim, which the client chose before asking.
 */
final class Redlock implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Redlock.class);
    private static final Duration MAX_LEASE = Duration.ofDays(36_500);

    private final List<RedisNode> nodes;
    private final int quorum;
    private final KeySpace keys;
    private final double clockDriftFactor;
    private final String description;
    private final ExecutorService fanOutThreads;

    Redlock(List<RedisNode> nodes, KeySpace keys, double clockDriftFactor, String description) {
        this.nodes = List.copyOf(nodes);
        this.quorum = nodes.size() / 2 + 1;
        this.keys = keys;
        this.clockDriftFactor = clockDriftFactor;
        this.description = description;
        AtomicInteger threadNumber = new AtomicInteger();
        this.fanOutThreads = nodes.size() == 1 ? null : Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "txlock-redis-quorum-" + threadNumber.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    static void requireMinLease(LockRequest request) {
        if (request.lease().compareTo(RedisLockProvider.MIN_LEASE) < 0) {
            throw new IllegalArgumentException("a Redis lock's lease must be at least " + RedisLockProvider.MIN_LEASE.toMillis()
                    + " ms, was " + request.lease() + " for '" + request.name() + "': a shorter one can run out before Redis's"
                    + " answer arrives. Use LockOptions.withLease(Duration.ofMillis(" + RedisLockProvider.MIN_LEASE.toMillis()
                    + ")) or longer");
        }
    }

    /** One attempt that does not queue: quorum mode's, and a single master's that may not wait. */
    Attempt tryAcquire(LockRequest request) {
        requireMinLease(request);
        String claim = LockValue.newClaim(request.owner());
        return tryAcquire(request, claim, keys.waiterKeys(request.name(), claim), 0, false);
    }

    /**
     * One attempt under a claim the caller chose; with one master it may queue (see {@link FairWait}).
     *
     * @param waiterKeys the lock's {@link KeySpace#waiterKeys keys for this claim}
     * @param placeMillis how long the attempt's place in the lock's queue lasts if it is not granted; 0: not queued
     * @param mayBeQueued whether an earlier call of this attempt may have queued it
     */
    Attempt tryAcquire(LockRequest request, String claim, List<String> waiterKeys, long placeMillis, boolean mayBeQueued) {
        long start = System.nanoTime();
        long lease = leaseMillis(request.lease());
        List<Outcome<RedisNode.Answer>> answers = fanOut(i -> nodes.get(i).acquire(waiterKeys, lease, claim, placeMillis, mayBeQueued));

        String[] provisional = new String[nodes.size()];
        BitSet mayHold = new BitSet(nodes.size());
        String best = null;
        long token = Long.MIN_VALUE;
        int granted = 0;
        for (int i = 0; i < provisional.length; i++) {
            Outcome<RedisNode.Answer> outcome = answers.get(i);
            if (!outcome.ok()) {
                mayHold.set(i); // the script may have run, only its answer was lost
            } else if (outcome.value().granted()) {
                mayHold.set(i);
                granted++;
                provisional[i] = outcome.value().value();
                long proposed = LockValue.tokenOf(provisional[i]);
                if (proposed > token) {
                    token = proposed;
                    best = provisional[i];
                }
            }
        }
        RedisGrant grant = new RedisGrant(request.name(), KeySpace.scriptKeysOf(waiterKeys), token, claim, mayHold);
        boolean grantedByQuorum = granted >= quorum && adopt(grant, provisional, best) >= quorum;
        double validity = validityMillis(start, lease);
        if (grantedByQuorum && validity > 0) {
            return Attempt.granted(grant);
        }
        if (grant.mayHoldAny()) {
            undo(grant, answers);
        }
        if (grantedByQuorum) {
            throw new LockBackendException(description + ": granted '" + request.name() + "' only after "
                    + Math.round(lease - validity - lease * clockDriftFactor) + " ms, longer than its lease of "
                    + lease + " ms allows (less the clock drift allowance); the grant was undone. Redis answers slower"
                    + " than the lease: use a longer lease", null);
        }
        return notGranted(request.name(), answers);
    }

    /**
     * Writes the highest proposed token back to every node that granted, so that any later majority, which
     * shares a node with this one, proposes a higher token. Not needed where that node proposed it (always so
     * with one node).
     *
     * @return on how many nodes the grant holds its final value
     */
    private int adopt(RedisGrant grant, String[] provisional, String finalValue) {
        List<Outcome<Boolean>> adopted = fanOut(i -> provisional[i] != null && (provisional[i].equals(finalValue)
                || nodes.get(i).adopt(grant.key(), keys.fenceKey(), grant.claim(), finalValue, grant.fencingToken())));
        return (int) adopted.stream().filter(o -> o.ok() && o.value()).count();
    }

    private Attempt notGranted(String name, List<Outcome<RedisNode.Answer>> answers) {
        long holderPttl = Long.MAX_VALUE;
        int reachable = 0;
        for (Outcome<RedisNode.Answer> outcome : answers) {
            if (outcome.ok()) {
                reachable++;
                if (!outcome.value().granted() && outcome.value().holderPttl() >= 0) {
                    holderPttl = Math.min(holderPttl, outcome.value().holderPttl());
                }
            }
        }
        if (reachable < quorum) {
            throw unreachable("acquire '" + name + "'", answers);
        }
        return holderPttl == Long.MAX_VALUE ? Attempt.held() : Attempt.heldFor(Duration.ofMillis(holderPttl));
    }

    void renew(RedisGrant g, Duration lease) {
        long start = System.nanoTime();
        long leaseMillis = leaseMillis(lease);
        List<Outcome<Boolean>> renewed = fanOut(i -> g.mayHold(i) && nodes.get(i).renew(g.key(), leaseMillis, g.claim()));
        requireMajority("renew", g, renewed);
        if (validityMillis(start, leaseMillis) <= 0) {
            throw new LockBackendException(description + ": renewing " + g + " took longer than its lease of " + lease, null);
        }
    }

    void release(RedisGrant g) {
        requireMajority("release", g, releaseOnAll(g));
    }

    /** Deletes the grant's key wherever it may be, also where its answer to the acquire was lost. */
    private List<Outcome<Boolean>> releaseOnAll(RedisGrant g) {
        String hints = hintChannel(g.name());
        return fanOut(i -> g.mayHold(i) && nodes.get(i).release(g.scriptKeys(), g.claim(), hints));
    }

    /** Quorum mode's waiters wait for release hints; a single master's are queued and handed the lock. */
    private String hintChannel(String name) {
        return nodes.size() > 1 ? keys.releaseChannel(name) : "";
    }

    /** Returns if a majority did it; else the grant is not held, or, if some nodes could not answer, unknown. */
    private void requireMajority(String what, RedisGrant grant, List<Outcome<Boolean>> outcomes) {
        int done = (int) outcomes.stream().filter(o -> o.ok() && o.value()).count();
        int unknown = (int) outcomes.stream().filter(o -> !o.ok()).count();
        if (done >= quorum) {
            return;
        }
        if (done + unknown >= quorum) {
            throw unreachable(what + " " + grant, outcomes);
        }
        throw new LockNotHeldException(description + ": cannot " + what + " " + grant + ": "
                + (nodes.size() == 1 ? "its key expired or belongs to another grant"
                        : "only " + done + " of " + nodes.size() + " masters still hold it, " + quorum + " needed"));
    }

    Optional<LockInfo> inspect(String name) {
        String key = keys.lockKey(name);
        List<Outcome<Optional<RedisNode.Stored>>> read = fanOut(i -> nodes.get(i).inspect(key));
        if (read.stream().filter(Outcome::ok).count() < quorum) {
            throw unreachable("inspect '" + name + "'", read);
        }
        Map<String, List<RedisNode.Stored>> byClaim = new HashMap<>();
        for (Outcome<Optional<RedisNode.Stored>> outcome : read) {
            if (outcome.ok()) {
                outcome.value().ifPresent(s -> byClaim.computeIfAbsent(LockValue.claimOf(s.value()), c -> new ArrayList<>()).add(s));
            }
        }
        return byClaim.values().stream()
                .filter(copies -> copies.size() >= quorum)
                .findFirst()
                .map(copies -> info(name, copies));
    }

    /** The holder as a majority of nodes show it: the same claim, the final token wherever it was written back. */
    private LockInfo info(String name, List<RedisNode.Stored> copies) {
        LockValue parsed;
        try {
            parsed = copies.stream().map(s -> LockValue.parse(s.value())).max(Comparator.comparingLong(LockValue::token)).orElseThrow();
        } catch (IllegalArgumentException e) {
            throw new LockBackendException(description + ": key '" + keys.lockKey(name)
                    + "' holds a value txlock did not write; is another application using prefix '" + keys.prefix() + "'?", e);
        }
        Instant until = copies.stream().filter(s -> s.pttl() >= 0).map(s -> Instant.ofEpochMilli(s.serverMillis() + s.pttl()))
                .min(Instant::compareTo).orElse(null);
        return new LockInfo(name, parsed.host(), parsed.ownerId(), parsed.token(), Instant.ofEpochMilli(parsed.sinceMillis()),
                until, 1);
    }

    /** How much of a lease is left after {@code start}, minus the clock drift allowance. */
    private double validityMillis(long start, long leaseMillis) {
        double elapsed = (System.nanoTime() - start) / 1e6;
        return leaseMillis - elapsed - leaseMillis * clockDriftFactor;
    }

    private static long leaseMillis(Duration lease) {
        return lease.compareTo(MAX_LEASE) > 0 ? MAX_LEASE.toMillis() : Math.max(1, lease.toMillis());
    }

    /**
     * Releases what an attempt took although it is not granted: at once where it was granted, and in the background
     * where the answer was lost (quorum mode), so that a master that hangs does not hold up the answer twice.
     * Whatever cannot be released expires with its lease.
     */
    private void undo(RedisGrant grant, List<Outcome<RedisNode.Answer>> answers) {
        List<String> scriptKeys = grant.scriptKeys();
        String channel = hintChannel(grant.name());
        List<Outcome<Boolean>> undone = fanOut(i -> answers.get(i).ok() && grant.mayHold(i)
                && nodes.get(i).release(scriptKeys, grant.claim(), channel));
        undone.stream().filter(o -> !o.ok()).forEach(o -> log.debug("could not undo a partial grant of {}: {}", grant, o.error().getMessage()));
        for (int i = 0; i < nodes.size() && fanOutThreads != null; i++) {
            RedisNode node = nodes.get(i);
            if (!answers.get(i).ok()) {
                try {
                    fanOutThreads.execute(() -> {
                        Outcome<Boolean> o = Outcome.of(() -> node.release(scriptKeys, grant.claim(), channel));
                        if (!o.ok()) {
                            log.debug("could not undo a partial grant of {}: {}", grant, o.error().getMessage());
                        }
                    });
                } catch (RejectedExecutionException closed) {
                    log.debug("closed: not undoing a partial grant of {} on {}", grant, node);
                }
            }
        }
    }

    private LockBackendException unreachable(String what, List<? extends Outcome<?>> outcomes) {
        List<LockBackendException> errors = outcomes.stream().filter(o -> !o.ok()).map(Outcome::error).toList();
        String reasons = errors.stream().map(Throwable::getMessage).collect(Collectors.joining("; "));
        LockBackendException e = new LockBackendException(description + ": could not " + what + ": "
                + (nodes.size() == 1 ? reasons : errors.size() + " of " + nodes.size() + " masters failed: " + reasons),
                errors.isEmpty() ? null : errors.get(0).getCause());
        errors.stream().skip(1).forEach(e::addSuppressed);
        return e;
    }

    /** Runs {@code call(i)} for every node, in parallel when there are several, and collects each result or failure. */
    private <T> List<Outcome<T>> fanOut(IntFunction<T> call) {
        if (nodes.size() == 1) {
            return List.of(Outcome.of(() -> call.apply(0)));
        }
        List<CompletableFuture<Outcome<T>>> others = new ArrayList<>();
        for (int i = 1; i < nodes.size(); i++) {
            int node = i;
            others.add(CompletableFuture.supplyAsync(() -> Outcome.of(() -> call.apply(node)), fanOutThreads));
        }
        List<Outcome<T>> all = new ArrayList<>(nodes.size());
        all.add(Outcome.of(() -> call.apply(0)));
        for (CompletableFuture<Outcome<T>> other : others) {
            try {
                all.add(other.join());
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : e;
            }
        }
        return all;
    }

    /** What one node answered, or why it could not. */
    private record Outcome<T>(T value, LockBackendException error) {
        static <T> Outcome<T> of(Supplier<T> call) {
            try {
                return new Outcome<>(call.get(), null);
            } catch (LockBackendException e) {
                return new Outcome<>(null, e);
            }
        }

        boolean ok() {
            return error == null;
        }
    }

    @Override
    public void close() {
        if (fanOutThreads != null) {
            fanOutThreads.shutdown();
        }
    }
}
